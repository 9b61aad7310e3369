"""Small groups join the one group their evidence clearly points to, never across a cannot-link."""

from identity import Byline, Thresholds, resolve
from identity.attach import MARGIN, SHARE_BEYOND, SHARE_POSTERIOR, Choice, attach, best_group
from identity.clusters import Block, Neighbours
from identity.evidence import profile_of
from identity.keys import Frequencies

LAB = "Department of Chemistry, Morwollin College, Morwollin"
OTHER_LAB = "Department of Physics, Kestrand Institute, Kestrand"


def _byline(number, name, coauthors, affiliation=LAB, **extra):
    fields = {"topics": ("T-catalysis",), "venue": "Journal of Catalysis", "year": 2015}
    fields.update(extra)
    return Byline(
        f"b{number}",
        name,
        f"W{number}",
        coauthors=coauthors,
        affiliations=(affiliation,) if affiliation else (),
        **fields,
    )


def _group(first, count, source_id, coauthors=("Yanwei Li", "Hong Zhao"), **extra):
    """``count`` bylines of "Wei Wang" that one source author id holds together."""
    return [
        _byline(first + n, "Wei Wang", coauthors, source_author_id=source_id, **extra)
        for n in range(count)
    ]


def _small(number=100, **extra):
    """One byline printing only the initial, sharing one co-author with the group."""
    fields = {"affiliation": "", "topics": ()}
    fields.update(extra)
    return _byline(number, "W. Wang", ("Yanwei Li",), **fields)


def _block(bylines, cannot_link=()):
    profiles = [profile_of(b) for b in bylines]
    freq = Frequencies()
    for profile in profiles:
        freq.add(profile)
    cannot: dict[str, set[str]] = {}
    for left, right in cannot_link:
        cannot.setdefault(left, set()).add(right)
        cannot.setdefault(right, set()).add(left)
    block = Block(profiles, cannot, freq)
    block.must_link()
    return block


def _attached(bylines, cannot_link=()):
    """The byline ids of each group once the small groups attached, sorted."""
    block = _block(bylines, cannot_link)
    attach(block, Neighbours(block))
    return sorted(sorted(group.ids) for group in block.groups.values())


def _ids(bylines):
    return sorted(b.id for b in bylines)


def test_a_small_group_joins_the_group_its_evidence_points_to():
    group, small = _group(1, 4, "A1"), _small()
    assert _attached([*group, small]) == [_ids([*group, small])]


def test_the_choice_says_how_clear_it_is():
    block = _block([*_group(1, 4, "A1"), _small()])
    small = next(i for i, g in block.groups.items() if g.ids == ["b100"])
    choice = best_group(block, Neighbours(block), small)
    assert choice is not None and choice.clear
    assert choice.beyond > 0 and choice.runner_up == float("-inf")


def test_attaching_reaches_what_the_merge_threshold_does_not():
    bylines = [*_group(1, 4, "A1"), _small()]
    apart = resolve(bylines, thresholds=Thresholds(attach=False))
    assert sorted(map(sorted, apart.clusters)) == [_ids(bylines[:4]), ["b100"]]
    together = resolve(bylines)
    assert sorted(map(sorted, together.clusters)) == [_ids(bylines)]


def test_a_name_alone_attaches_nothing():
    group = _group(1, 4, "A1")
    stranger = _byline(100, "W. Wang", ("Karl Oberholzer",), affiliation=OTHER_LAB, topics=())
    stranger.venue = "Annals of Geology"
    assert _attached([*group, stranger]) == [_ids(group), ["b100"]]


def test_no_attaching_across_a_cannot_link():
    group, small = _group(1, 4, "A1"), _small()
    attached = _attached([*group, small], cannot_link=[("b100", "b2")])
    assert attached == [_ids(group), ["b100"]]


def test_no_attaching_across_two_orcids():
    group = _group(1, 4, "A1", orcid="0000-0001-8270-1234")
    small = _small(orcid="0000-0002-1111-2222")
    assert _attached([*group, small]) == [_ids(group), ["b100"]]


def test_no_attaching_across_two_source_author_ids():
    group, small = _group(1, 4, "A1"), _small(source_author_id="A2")
    assert _attached([*group, small]) == [_ids(group), ["b100"]]


def test_two_groups_about_as_good_leave_the_small_group_alone():
    first, second = _group(1, 4, "A1"), _group(11, 4, "A2")
    block = _block([*first, *second, _small()])
    small = next(i for i, g in block.groups.items() if g.ids == ["b100"])
    choice = best_group(block, Neighbours(block), small)
    assert choice is not None and choice.logit - choice.runner_up < MARGIN
    assert not choice.clear
    expected = sorted([_ids(first), _ids(second), ["b100"]])
    assert _attached([*first, *second, _small()]) == expected


def test_a_clearly_better_group_wins_over_a_weaker_one():
    near = _group(1, 4, "A1")
    far = _group(11, 4, "A2", coauthors=("Karl Oberholzer",), affiliation=OTHER_LAB)
    expected = sorted([_ids([*near, _small()]), _ids(far)])
    assert _attached([*near, *far, _small()]) == expected


def test_two_small_groups_of_one_work_never_both_join_a_group():
    group = _group(1, 4, "A1")
    one = _small(100)
    two = _small(101)
    two.work_id = one.work_id
    attached = _attached([*group, one, two])
    assert not any({"b100", "b101"} <= set(ids) for ids in attached)


def _namesakes(count, first=500):
    """``count`` people printed "W. Wang", each on one work of their own circle."""
    return [
        _byline(
            first + n,
            "W. Wang",
            (f"Person{n} Stranger{n}",),
            affiliation="",
            topics=(),
            venue=f"Letters {n}",
            source_author_id=f"N{n}",
        )
        for n in range(count)
    ]


def _choice_of(bylines, number=100):
    block = _block(bylines)
    small = next(i for i, g in block.groups.items() if g.ids == [f"b{number}"])
    return best_group(block, Neighbours(block), small)


def test_a_group_holding_most_of_a_crowded_block_draws_its_small_groups():
    # Many namesakes make the pair rule strict (a large block, a frequent name), but
    # the group holds most of the block's bylines and the small group's co-author and
    # place point to it: by share it is that group's person.
    group = _group(1, 60, "A1")
    choice = _choice_of([*group, *_namesakes(40), _small(affiliation=LAB)])
    assert choice is not None and choice.target is not None
    assert choice.posterior >= SHARE_POSTERIOR and choice.beyond >= SHARE_BEYOND
    assert choice.clear
    attached = _attached([*group, *_namesakes(40), _small(affiliation=LAB)])
    assert _ids([*group, _small()]) in attached


def test_by_share_two_groups_about_as_likely_leave_the_small_group_alone():
    first, second = _group(1, 30, "A1"), _group(101, 30, "A2")
    choice = _choice_of(
        [*first, *second, *_namesakes(10, first=700), _small(300, affiliation=LAB)], 300
    )
    assert choice is not None and choice.posterior < 0.6
    assert not choice.clear


def test_by_share_the_evidence_beyond_the_names_must_still_be_strong():
    common = {"small": 1, "target": 2, "runner_up": -5.0, "groups": 400}
    strong = Choice(logit=-1.0, beyond=SHARE_BEYOND, posterior=SHARE_POSTERIOR, **common)
    weak = Choice(logit=-1.0, beyond=SHARE_BEYOND - 0.5, posterior=0.999, **common)
    unsure = Choice(logit=-1.0, beyond=SHARE_BEYOND + 3, posterior=SHARE_POSTERIOR - 0.1, **common)
    assert strong.clear and not weak.clear and not unsure.clear
