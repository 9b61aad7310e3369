"""References shared far beyond their popularity: one reading list, past the subject cap."""

from identity import evidence as weighing
from identity.evidence import Byline, profile_of, weigh
from identity.keys import Frequencies

RARE = tuple(f"W{n}" for n in range(6))  # cited by these two works alone
POPULAR = tuple(f"P{n}" for n in range(6))  # cited by nearly every work


def _side(work: str, name: str, references) -> Byline:
    return Byline(work, name, work, references=references, topics=("cond-mat.str-el",))


def _weighed(left: str, right: str, references) -> tuple[float, list[str], float]:
    """The log-odds that two bylines citing ``references`` are one person, the reasons,
    and the same log-odds without the weighing past the subject cap."""
    a = profile_of(_side("A", left, references))
    b = profile_of(_side("B", right, references))
    freq = Frequencies()
    for profile in (a, b):
        freq.add(profile)
    for n in range(400):  # the rest of the corpus: other works, citing the popular ones
        freq.add(profile_of(_side(f"F{n}", f"Someone{n} Else", (*POPULAR, f"X{n}"))))
    found = weigh(a, b, freq, explain=True)
    freq.citations = 0  # no count of citations: nothing weighed past the cap
    return found.logit, found.reasons, weigh(a, b, freq).logit


def test_many_seldom_cited_references_in_common_weigh_past_the_subject_cap():
    logit, reasons, capped = _weighed("Yong Zhang", "Yong Zhang", RARE)
    assert logit == capped + weighing.REFERENCES_CAP
    assert "6 references in common, seldom cited together" in reasons


def test_references_everyone_cites_add_nothing_past_the_cap():
    logit, reasons, capped = _weighed("Yong Zhang", "Yong Zhang", POPULAR)
    assert logit == capped
    assert not any("seldom cited" in reason for reason in reasons)


def test_initials_alone_may_be_two_lab_mates_with_one_reading_list():
    logit, reasons, capped = _weighed("Y. Zhang", "Yong Zhang", RARE)
    assert logit == capped
