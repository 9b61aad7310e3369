"""A seeded corpus of bylines with namesakes and name variants, for measuring.

People belong to labs (a field, an institution, partner labs); works are
written by a lab with some partners; each byline prints its author's name the
way its venue or source does (initials, "Surname, Given", capitals, accents
dropped, a nickname, a middle name left out, a particle dropped...). Names are
drawn from frequent names of several naming traditions, so namesakes are the
rule for "Wei Wang" and rare for most Western surnames, whose long tail is made
up of invented ones. Part of the bylines lack affiliations, references or
topics, as arXiv-like sources do.

``generate(n, seed)`` returns ``[(Byline, person id), ...]`` of about n bylines.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from identity.evidence import Byline

_W = str.split  # word lists below are written as text

CHINESE_SURNAMES = _W(
    "wang li zhang liu chen yang huang zhao wu zhou xu sun ma zhu hu guo he lin gao luo "
    "zheng liang xie song tang han feng deng cao peng zeng xiao tian dong pan yuan cai jiang "
    "yu du ye cheng wei su lu ding ren shen yao jin fu zhong"
)
CHINESE_SYLLABLES = _W(
    "wei jing li yan ying hui jun lei min ming hong yu xin jie lin tao bo hao yang xiao jian "
    "ping lu yi fang na qing chao gang feng bin yong tian chen hua zhi wen jia xue rui kai "
    "shan long peng fei lan mei ning qiang xiang yun zhen zi guang hai"
)
KOREAN_SURNAMES = _W("kim lee park choi jung kang cho yoon jang lim han shin seo kwon hwang ahn")
KOREAN_SYLLABLES = _W("ji min jae hyun seung young soo jin ho eun woo sung hee kyung dong hoon")
WESTERN_SURNAMES = _W(
    "smith johnson williams brown jones miller davis wilson anderson taylor thomas moore "
    "martin jackson thompson white harris clark lewis robinson walker young allen king "
    "wright scott hill green adams baker nelson carter mitchell roberts campbell evans "
    "turner parker collins edwards stewart morris murphy cook rogers morgan cooper peterson "
    "bailey reed kelly howard cox ward richardson watson brooks wood james bennett gray "
    "hughes price sanders myers long ross foster powell jenkins perry russell sullivan bell"
)
WESTERN_GIVEN = _W(
    "john david michael james robert william richard thomas daniel paul mark peter andrew "
    "stephen christopher matthew anthony steven kevin brian george edward charles joseph "
    "maria anna laura sarah elena susan jennifer elizabeth karen lisa nancy helen emma "
    "rachel claire alice julia sophie hannah martin simon philip adrian frank francis "
    "clement stefano marco luca giovanni pierre jean francois hans klaus wolfgang jan"
)
MIDDLE_GIVEN = _W("james john anne marie louise lee alan ray edward thomas william grace rose")
INDIAN_SURNAMES = _W(
    "kumar singh sharma gupta patel shah das roy reddy rao iyer nair verma jain mehta "
    "banerjee chatterjee mukherjee bose ghosh pillai menon joshi kulkarni desai bhat "
    "agarwal srivastava mishra pandey tiwari chauhan saxena kapoor malhotra"
)
INDIAN_GIVEN = _W(
    "rahul amit priya anil sunil vijay ravi deepak sanjay anita pooja neha arun rajesh suresh "
    "arjun vikram karthik lakshmi meera kavita sunita ashok manoj ramesh ganesh harish "
    "nitin rohit sachin ajay abhishek shreya divya swati aparna ananya ishaan varun"
)
HISPANIC_SURNAMES = _W(
    "garcia rodriguez martinez hernandez lopez gonzalez perez sanchez ramirez torres "
    "flores rivera gomez diaz silva santos oliveira souza costa pereira ferreira"
)
HISPANIC_GIVEN = _W(
    "jose juan carlos luis miguel ana maria lucia pablo javier diego sofia alejandro "
    "fernando ricardo eduardo manuel rafael sergio andres gabriela valentina camila "
    "isabel carmen rosa beatriz joao paulo"
)
PARTICLE_SURNAMES = (
    "de la Cruz", "da Silva", "dos Santos", "van der Berg", "van Dijk", "de Vries", "von Braun",
    "Del Maestro", "de Souza", "van den Bosch", "le Roux", "di Stefano", "De Luca",
)  # fmt: skip
ACCENTED = (
    ("Müller", "müller"), ("Schröder", "schröder"), ("Jäger", "jäger"), ("Hélène", ""),
    ("Frédéric", ""), ("José", ""), ("Zoë", ""), ("Søren", ""), ("Łukasz", ""),
    ("Núñez", "núñez"), ("Gómez", "gómez"), ("Šimić", "šimić"), ("Dvořák", "dvořák"),
)  # fmt: skip
NICKNAMES = {
    "william": "bill", "robert": "bob", "richard": "rick", "james": "jim", "francis": "frank",
    "christopher": "chris", "clement": "clem", "anthony": "tony", "thomas": "tom",
    "michael": "mike", "daniel": "dan", "edward": "ed", "stephen": "steve", "matthew": "matt",
    "elizabeth": "liz", "jennifer": "jen", "peter": "pete", "andrew": "andy",
}  # fmt: skip
SYLLABLES = _W(
    "ka ro mi ten sel dor vak lin bre tos ham gur pel zan mor fis ket lun dra wol "
    "bar nes tik ul om ash ber cal dun eck fal gor hel ist jor kem lor mun nor pet"
)


@dataclass
class Person:
    id: str
    given: list[str]  # first, then middles (may be empty)
    surname: str
    style: str  # naming tradition: "chinese", "korean", "western", ...
    nickname: str = ""
    orcid: str = ""
    institutions: list[int] = field(default_factory=list)
    weight: float = 1.0


def _zipf(rng: random.Random, items: list, exponent: float = 1.1):
    weights = [1.0 / (rank + 1) ** exponent for rank in range(len(items))]
    return lambda: rng.choices(items, weights)[0]


class Names:
    """Draws people's names: frequent names of several traditions, and a long invented tail."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.zh_surname = _zipf(rng, CHINESE_SURNAMES)
        self.zh_syllable = _zipf(rng, CHINESE_SYLLABLES, 0.9)
        self.ko_surname = _zipf(rng, KOREAN_SURNAMES)
        self.western_given = _zipf(rng, WESTERN_GIVEN, 0.8)
        self.western_surname = _zipf(rng, WESTERN_SURNAMES, 0.9)

    def invented(self) -> str:
        return "".join(self.rng.choice(SYLLABLES) for _ in range(self.rng.choice((2, 3, 3, 4))))

    def draw(self) -> tuple[list[str], str, str]:
        rng, roll = self.rng, self.rng.random()
        if roll < 0.28:
            syllables = [self.zh_syllable() for _ in range(rng.choice((1, 2, 2)))]
            return ["".join(syllables)], self.zh_surname(), "chinese"
        if roll < 0.33:
            given = "-".join(rng.sample(KOREAN_SYLLABLES, 2))
            return [given], self.ko_surname(), "korean"
        if roll < 0.41:
            return [rng.choice(INDIAN_GIVEN)], rng.choice(INDIAN_SURNAMES), "indian"
        if roll < 0.48:
            surname = rng.choice(HISPANIC_SURNAMES)
            if rng.random() < 0.3:
                surname += " " + rng.choice(HISPANIC_SURNAMES)
            return [rng.choice(HISPANIC_GIVEN)], surname, "hispanic"
        given = [self.western_given()]
        if rng.random() < 0.4:
            given.append(rng.choice(MIDDLE_GIVEN))
        if roll < 0.52:
            return given, rng.choice(PARTICLE_SURNAMES), "particle"
        if roll < 0.56:
            accented = rng.choice(ACCENTED)
            if accented[1]:
                return given, accented[0], "accented"
            return [accented[0], *given[1:]], self.invented(), "accented"
        if rng.random() < 0.45:
            return given, self.western_surname(), "western"
        return given, self.invented(), "western"


def _strip_accents(text: str, rng: random.Random) -> str:
    from identity.names import fold

    if any(ch in text for ch in "äöüÄÖÜ") and rng.random() < 0.5:
        for umlaut, spelled in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("Ü", "Ue"), ("Ö", "Oe")):
            text = text.replace(umlaut, spelled)
    return " ".join(word[:1].upper() + word[1:] for word in fold(text).split())


def _initials(given: str, dots: bool) -> str:
    pieces = [p for p in given.replace("-", " -").split() if p]
    out = []
    for piece in pieces:
        hyphen = piece.startswith("-")
        letter = piece.lstrip("-")[:1].upper()
        out.append(("-" if hyphen else "") + letter + ("." if dots else ""))
    return "".join(out) if not dots else " ".join(out).replace(" -", "-")


def render(person: Person, rng: random.Random, initials_share: float) -> str:
    """One printing of a person's name, as a venue or source might give it."""
    first = person.given[0]
    initials = rng.random() < initials_share
    if person.nickname and not initials and rng.random() < 0.6:
        first = person.nickname
    if person.style in ("chinese", "korean") and rng.random() < 0.2:
        first = _respace(first, rng)
    middles = person.given[1:] if rng.random() < 0.6 else []
    surname = person.surname
    if person.style == "particle" and rng.random() < 0.08:
        surname = surname.split()[-1]
    if person.style == "accented" and rng.random() < 0.3:
        first, surname = _strip_accents(first, rng), _strip_accents(surname, rng)
    given = " ".join([first.title() if "-" not in first else first, *[m.title() for m in middles]])
    if initials:
        given = _initials(given, dots=rng.random() < 0.85)
    text = f"{surname}, {given}" if rng.random() < 0.12 else f"{given} {surname}"
    return text.upper() if rng.random() < 0.03 else text


def _respace(given: str, rng: random.Random) -> str:
    """ "Xiaoming" as "Xiao-Ming", or "Ji-Min" as "Jimin"."""
    if "-" in given:
        return given.replace("-", "").title()
    for syllable in sorted(CHINESE_SYLLABLES, key=len, reverse=True):
        rest = given[len(syllable) :]
        if given.lower().startswith(syllable) and rest.lower() in CHINESE_SYLLABLES:
            return f"{syllable.title()}-{rest.title()}"
    return given


@dataclass
class Lab:
    field: int
    institution: int
    members: list[Person]
    partners: list[int]
    words: list[str]
    years: tuple[int, int]
    venues: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    reading: list[str] = field(default_factory=list)
    cumulative: list[float] = field(default_factory=list)
    works: list[str] = field(default_factory=list)


@dataclass
class World:
    fields: list[dict]
    institutions: list[list[str]]  # raw printings of each institution
    labs: list[Lab]
    people: list[Person]
    lab_weights: list[float] = field(default_factory=list)


def _institution(rng: random.Random, names: Names) -> list[str]:
    place = names.invented().title()
    kind = rng.choice(("University of", "Institute of Technology", "Polytechnic of", "College"))
    dept = rng.choice(("Physics", "Chemistry", "Computer Science", "Biology", "Economics"))
    full = f"{kind} {place}" if kind.endswith("of") else f"{place} {kind}"
    short = {"University of": "Univ.", "Polytechnic of": "Polytech."}.get(kind, kind[:4] + ".")
    return [full, f"Department of {dept}, {full}, {place}", f"Dept. {dept}, {short} {place}"]


def build_world(bylines: int, rng: random.Random) -> World:
    names = Names(rng)
    people_count = max(20, bylines // 6)
    lab_count = max(4, people_count // 6)
    field_count = max(10, lab_count // 60)
    fields = [
        {
            "topics": [f"T{f}.{k}" for k in range(12)],
            "venues": [f"Journal of {names.invented().title()} Studies" for _ in range(8)],
            "words": [names.invented() + names.invented() for _ in range(150)],
            "category": f"cat.{f}",
        }
        for f in range(field_count)
    ]
    institutions = [_institution(rng, names) for _ in range(max(2, lab_count // 3))]
    field_of = _zipf(rng, list(range(field_count)), 0.8)
    people, labs = [], []
    for _ in range(lab_count):
        members: list[Person] = []
        for _ in range(rng.randint(2, 10)):
            member = _person(len(people) + len(members), names, rng)
            # A lab seldom holds two people of one full name: draw again.
            while any(_same_name(member, other) for other in members):
                member = _person(len(people) + len(members), names, rng)
            members.append(member)
        people.extend(members)
        start = rng.randint(1975, 2018)
        home = rng.randrange(len(institutions))
        for member in members:
            member.institutions = [home] + (
                [rng.randrange(len(institutions))] if rng.random() < 0.2 else []
            )
        words = [names.invented() + names.invented() for _ in range(15)]
        labs.append(
            Lab(
                field_of(), home, members, [], words, (start, min(2025, start + rng.randint(3, 30)))
            )
        )
    by_field: dict[int, list[int]] = {}
    for index, lab in enumerate(labs):
        by_field.setdefault(lab.field, []).append(index)
    for index, lab in enumerate(labs):
        peers = [i for i in by_field[lab.field] if i != index] or [index]
        lab.partners = rng.sample(peers, min(len(peers), rng.randint(1, 4)))
        lab.cumulative = list(_cumulative([m.weight for m in lab.members]))
        lab.venues = rng.sample(fields[lab.field]["venues"], 3)
        lab.topics = rng.sample(fields[lab.field]["topics"], 4)
    return World(fields, institutions, labs, people)


def _same_name(a: Person, b: Person) -> bool:
    return a.surname == b.surname and a.given[0] == b.given[0]


def _cumulative(weights):
    total = 0.0
    for weight in weights:
        total += weight
        yield total


def _person(number: int, names: Names, rng: random.Random) -> Person:
    given, surname, style = names.draw()
    person = Person(f"P{number}", given, surname.title() if style != "particle" else surname, style)
    if style == "particle":
        person.surname = surname
    person.nickname = NICKNAMES.get(given[0].lower(), "").title() if rng.random() < 0.5 else ""
    person.orcid = (
        f"0000-0002-{number // 10000:04d}-{number % 10000:04d}" if rng.random() < 0.3 else ""
    )
    person.weight = math.exp(rng.gauss(0.0, 1.0))
    return person


def _authors(world: World, lab: Lab, rng: random.Random) -> list[Person]:
    """Lab members (its head on most works), often a partner lab's, now and then anyone."""
    count = min(len(lab.members), rng.choice((1, 2, 2, 3, 3, 4, 5)))
    chosen: list[Person] = [lab.members[0]] if rng.random() < 0.8 else []
    while len(chosen) < count:
        person = rng.choices(lab.members, cum_weights=lab.cumulative)[0]
        if person not in chosen:
            chosen.append(person)
    if rng.random() < 0.5:
        partner = world.labs[rng.choice(lab.partners)]
        for _ in range(rng.choice((1, 1, 2))):
            person = rng.choices(partner.members, cum_weights=partner.cumulative)[0]
            if person not in chosen:
                chosen.append(person)
    if rng.random() < 0.1:
        person = rng.choice(world.people)
        if person not in chosen:
            chosen.append(person)
    rng.shuffle(chosen)
    return chosen


def _work_bylines(world: World, number: int, rng: random.Random, cited: dict) -> list[Byline]:
    lab = rng.choices(world.labs, cum_weights=world.lab_weights)[0]
    topic_field = world.fields[lab.field]
    authors = _authors(world, lab, rng)
    year = rng.randint(*lab.years)
    preprint = rng.random() < 0.25
    work_id = f"S{number}"
    venues = lab.venues if rng.random() < 0.7 else topic_field["venues"]
    venue = "arXiv" if preprint else rng.choice(venues)
    pool = lab.topics if rng.random() < 0.7 else topic_field["topics"]
    topics = [topic_field["category"]] if preprint else rng.sample(pool, 3)
    if rng.random() < 0.15:
        topics = []
    words = rng.sample(topic_field["words"], 6) + rng.sample(lab.words, 2)
    references = _references(lab, cited.setdefault(lab.field, []), rng, preprint)
    names = [render(p, rng, 0.7 if preprint else 0.35) for p in authors]
    bylines = []
    for position, person in enumerate(authors):
        bylines.append(
            Byline(
                id=f"{work_id}:{position}",
                name=names[position],
                work_id=work_id,
                coauthors=tuple(n for i, n in enumerate(names) if i != position),
                affiliations=_affiliation(world, person, year, lab, rng, preprint),
                topics=tuple(topics),
                venue=venue,
                year=year,
                references=references,
                words=(" ".join(words),),
                orcid=person.orcid if not preprint and rng.random() < 0.5 else "",
                source_author_id=person.id,
            )
        )
    lab.works.append(work_id)
    cited[lab.field].append(work_id)
    return bylines


def _references(lab: Lab, field_works: list[str], rng: random.Random, preprint: bool):
    """A lab cites mostly from its own reading list, which grows with what it reads."""
    if rng.random() < (0.6 if preprint else 0.2) or not field_works:
        return ()
    found = set()
    for _ in range(rng.randint(3, 25)):
        if lab.reading and rng.random() < 0.6:
            found.add(rng.choice(lab.reading))
        else:
            work = rng.choice(field_works[-5000:])
            found.add(work)
            lab.reading.append(work)
    if lab.works:
        found.update(rng.choice(lab.works) for _ in range(rng.randint(0, 3)))
    del lab.reading[:-300]
    return tuple(sorted(found))


def _affiliation(world: World, person: Person, year: int, lab: Lab, rng, preprint: bool):
    if rng.random() < (0.6 if preprint else 0.2):
        return ()
    moved = len(person.institutions) > 1 and year > (lab.years[0] + lab.years[1]) // 2
    printings = world.institutions[person.institutions[1 if moved else 0]]
    return (rng.choice(printings),)


def generate(bylines: int, seed: int = 7) -> list[tuple[Byline, str]]:
    """About ``bylines`` bylines with the id of the person behind each."""
    rng = random.Random(seed)
    world = build_world(bylines, rng)
    world.lab_weights = list(
        _cumulative([sum(m.weight for m in lab.members) for lab in world.labs])
    )
    corpus: list[tuple[Byline, str]] = []
    cited: dict[int, list[str]] = {}
    number = 0
    while len(corpus) < bylines:
        for byline in _work_bylines(world, number, rng, cited):
            corpus.append((byline, byline.source_author_id))
        number += 1
    return corpus
