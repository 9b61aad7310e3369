"""Small general tables the name rules read: letters, frequent names, usual variants."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Letters that do not decompose into a base letter and accents, and the common
# Cyrillic and Greek letters (romanised the usual bibliographic way).
TRANSLITERATION = {
    "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "ß": "ss", "æ": "ae", "Æ": "Ae",
    "œ": "oe", "Œ": "Oe", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th",
    "Þ": "Th", "ı": "i", "ħ": "h", "Ħ": "H", "ŀ": "l", "Ŀ": "L", "ŋ": "ng",
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh",
    "з": "z", "и": "i", "й": "y", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o",
    "п": "p", "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f", "х": "kh", "ц": "ts",
    "ч": "ch", "ш": "sh", "щ": "shch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu",
    "я": "ya", "і": "i", "ї": "yi", "є": "ye", "ґ": "g",
    "А": "A", "Б": "B", "В": "V", "Г": "G", "Д": "D", "Е": "E", "Ё": "E", "Ж": "Zh",
    "З": "Z", "И": "I", "Й": "Y", "К": "K", "Л": "L", "М": "M", "Н": "N", "О": "O",
    "П": "P", "Р": "R", "С": "S", "Т": "T", "У": "U", "Ф": "F", "Х": "Kh", "Ц": "Ts",
    "Ч": "Ch", "Ш": "Sh", "Щ": "Shch", "Ъ": "", "Ы": "Y", "Ь": "", "Э": "E", "Ю": "Yu",
    "Я": "Ya", "І": "I", "Ї": "Yi", "Є": "Ye", "Ґ": "G",
    "α": "a", "β": "b", "γ": "g", "δ": "d", "ε": "e", "ζ": "z", "η": "i", "θ": "th",
    "ι": "i", "κ": "k", "λ": "l", "μ": "m", "ν": "n", "ξ": "x", "ο": "o", "π": "p",
    "ρ": "r", "σ": "s", "ς": "s", "τ": "t", "υ": "y", "φ": "f", "χ": "ch", "ψ": "ps",
    "ω": "o",
}  # fmt: skip


# Usual short forms and variants of given names, one group per person-name.
NICKNAME_GROUPS = (
    ("william", "bill", "will", "billy", "willy", "liam"),
    ("robert", "bob", "rob", "bobby", "robbie", "bert"),
    ("richard", "rick", "dick", "rich", "ricky"),
    ("james", "jim", "jimmy", "jamie"),
    ("john", "jack", "johnny", "jon"),
    ("jonathan", "jon", "jonny"),
    ("francis", "frank"),
    ("franklin", "frank"),
    ("frances", "fran"),
    ("margaret", "maggie", "meg", "peggy"),
    ("elizabeth", "liz", "beth", "betty", "eliza", "elisabeth"),
    ("katherine", "catherine", "kathryn", "kate", "cathy", "kathy", "katie"),
    ("michael", "mike", "mick", "mickey"),
    ("thomas", "tom", "tommy"),
    ("joseph", "joe", "joey"),
    ("benjamin", "ben", "benny"),
    ("daniel", "dan", "danny"),
    ("david", "dave", "davy"),
    ("edward", "ed", "ted", "eddie", "ned"),
    ("alexander", "alex", "sasha", "sandy", "aleksandr", "aleksander"),
    ("alexandra", "alex", "sasha", "aleksandra"),
    ("christopher", "chris", "kit"),
    ("christine", "chris", "christina"),
    ("clement", "clem"),
    ("nicholas", "nick", "nicolas"),
    ("anthony", "tony"),
    ("andrew", "andy", "drew"),
    ("stephen", "steven", "steve"),
    ("timothy", "tim"),
    ("peter", "pete"),
    ("samuel", "sam", "sammy"),
    ("charles", "charlie", "chuck"),
    ("gregory", "greg"),
    ("patrick", "pat"),
    ("patricia", "pat", "patty", "trish"),
    ("matthew", "matt"),
    ("philip", "phillip", "phil"),
    ("gerald", "gerry", "jerry"),
    ("lawrence", "laurence", "larry"),
    ("jeffrey", "jeff"),
    ("geoffrey", "geoff"),
    ("susan", "sue", "suzanne"),
    ("jennifer", "jen", "jenny"),
    ("rebecca", "becky"),
    ("deborah", "debra", "deb", "debbie"),
    ("pamela", "pam"),
    ("victoria", "vicky", "vicki"),
    ("abigail", "abby"),
    ("kenneth", "ken", "kenny"),
    ("donald", "don"),
    ("ronald", "ron"),
    ("raymond", "ray"),
    ("douglas", "doug"),
    ("leonard", "len", "lenny"),
    ("frederick", "frederic", "fred", "freddie"),
    ("albert", "al", "bert"),
    ("henry", "harry", "hank"),
    ("harold", "harry"),
    ("joshua", "josh"),
    ("zachary", "zach", "zack"),
    ("walter", "walt"),
    ("eugene", "gene"),
    ("theodore", "ted", "theo"),
    ("vincent", "vince"),
    ("nathaniel", "nathan", "nate", "nat"),
    ("gabriel", "gabe"),
    ("dmitry", "dmitri", "dmitrii", "dimitri"),
    ("yuri", "yury", "iurii", "yurii"),
    ("sergey", "sergei", "sergii"),
    ("evgeny", "evgenii", "yevgeny", "eugeny"),
    ("mohammed", "mohammad", "muhammad", "mohamed", "muhammed"),
    ("jacob", "jakob", "jake"),
    ("mary", "molly"),
    ("ann", "anne", "annie"),
)

# Lower-case words that belong to the surname that follows them.
PARTICLES = _words(
    """
    de del della delle dei degli di da das dos do du des van vander von der den ter ten le
    la les lo st saint san santa bin ben ibn al el abu mac zu af av
    """
)

# Surnames borne by very many researchers: a match on them alone says little.
COMMON_SURNAMES = _words(
    """
    wang li zhang liu chen yang huang zhao wu zhou xu sun ma zhu hu guo he lin gao luo zheng
    liang xie song tang han feng deng cao peng zeng xiao tian dong pan yuan cai jiang yu du
    ye cheng wei su lu ding ren shen yao jin fu zhong shi tan lei fan kim lee park choi jung
    jeong kang cho yoon jang lim han shin seo kwon hwang ahn song nguyen tran le pham hoang
    phan vu vo dang bui do ho ngo duong ly singh kumar sharma gupta patel shah das roy khan
    ali ahmed hassan hussain mohamed smith johnson williams brown jones miller davis wilson
    anderson taylor thomas moore martin jackson thompson white harris clark lewis robinson
    walker young allen king wright scott hill green adams baker nelson carter mitchell
    roberts campbell evans garcia rodriguez martinez hernandez lopez gonzalez perez sanchez
    ramirez torres flores rivera gomez diaz silva santos oliveira souza costa pereira
    ferreira muller mueller schmidt schneider fischer weber meyer wagner becker schulz
    hoffmann rossi russo ferrari esposito bianchi romano ricci suzuki tanaka watanabe ito
    yamamoto nakamura kobayashi sato takahashi kato ivanov smirnov kuznetsov popov
    """
)

# Given names (and romanised syllables) shared by very many researchers.
COMMON_GIVEN = _words(
    """
    wei jing li yan ying hui jun lei min ming hong yu xin jie lin tao bo hao yang xiao jian
    ping lu yi fang na qing chao gang feng bin yong tian chen hua john david michael james
    robert william richard thomas daniel paul mark peter maria anna laura sarah elena andrea
    marco luca carlos jose juan ana jae young min ji hyun sung
    """
)

# Words of affiliations that name no particular place.
GENERIC_WORDS = _words(
    """
    a an and at de der des di du for from in la le of on the und to y e et university
    universite universitat universidad universidade universita univ department dept
    departamento departement institute institut instituto istituto school college faculty
    facultad center centre centro centrum laboratory laboratoire lab labs research sciences
    science scientific national state federal public hospital medical medicine clinic
    engineering technology technical polytechnic physics chemistry biology mathematics
    computer computing informatics division group unit key graduate studies academy
    foundation program programme road street avenue box email usa uk china germany france
    japan india italy spain
    """
)

# Words of titles that say nothing of the subject.
STOP_WORDS = _words(
    """
    about above after again against all also among analysis and approach are based between
    both but can case data different does during each effect effects evidence from further
    have how into its method methods model models more most new not novel over paper results
    role some study such than that the their them then there these this those through
    towards under use used using via was were what when where which while with within
    without
    """
)

# Familiar forms printed in full whose initial is not the formal name's: they are
# blocked under the formal initial, so "Bill Smith" meets "W. Smith".
CROSS_INITIAL_NICKNAMES = _words("bill billy bob bobby dick peggy betty liz tony ned sandy sasha")

# Given names of two letters, told apart from two initials in names printed in capitals.
SHORT_GIVEN = _words("bo li yu ji jo al ed yi qi na xu hu wu lu le an ai mo ya ye su ma")
