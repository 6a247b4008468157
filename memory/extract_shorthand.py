"""Note-taking shorthand written out before the sales rules read a note.

Salespeople type fast: "mtg w/ capt. lee, fleet ops dir. i send case study tmrw",
"Must integrate w/ Epic", "prob decide Q1", "VP Eng", "cc his asst". The rules read
words, so each abbreviation is written out once ("meeting with", "director",
"tomorrow", "probably", "assistant") and a title's dot no longer ends a sentence.
Also: the part of a run-on sentence that is a joke ("budget TBD - he joked 'a billion
dollars' lol", "杨总开玩笑说预算一个亿哈哈") is cut out, so the rest of the sentence is
still read. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_SHORT: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p, re.I), r)
    for p, r in [
        (r"\bw/o\b", "without"),
        (r"(?<![\w/])w/\s*(?=[A-Za-z])", "with "),
        (r"\bb/c\b", "because"),
        (r"\bmtgs?\b", "meeting"),
        (r"\b(?:tmrw|tmr|tmw|2moro)\b", "tomorrow"),
        (r"\basst(?:\.(?=\s+(?-i:[a-z])))?(?=[\s.,;)]|$)", "assistant"),
        (r"\bmgr(?:\.(?=\s+(?-i:[a-z])))?(?=[\s.,;)]|$)", "manager"),
        (r"\bmgmt\b", "management"),
        (r"\bdir(?:\.(?=\s+(?-i:[a-z])|\s*[^()\s][^()]{0,25}\)))?(?=[\s.,;)]|$)", "director"),
        (r"\bdept(?:\.(?=\s+(?-i:[a-z])))?(?=[\s.,;)]|$)", "department"),
        (r"\bmaint(?:\.(?=\s+(?-i:[a-z])))?(?=[\s.,;)]|$)", "maintenance"),
        (
            r"(?<!the )(?<!a )(?<!big )(?<!main )\bprob\b\.?(?=\s)(?!\s*(?:is|was|with|for)\b)",
            "probably",
        ),
        (r"\breqs?\b\.?(?=\s|:)", "requirement"),
        (r"\bcust\b\.?(?=\s)", "customer"),
        (r"\bcapt\.\s", "Capt "),
        (r"\bpls\b|\bplz\b", "please"),
        (r"\bthx\b", "thanks"),
        (r"(?<=[A-Za-z])\s+=\s+(?=[A-Za-z])", " is "),
        (r"\basap\b", "as soon as possible"),
    ]
]


_SIGNATURE = re.compile(
    r"^(?P<name>(?:Dr\.? )?[A-Z][a-z'’-]+(?: [A-Z][a-z'’-]+){1,2}|[\u4e00-\u9fff]{2,3})[ \t]*\n[ \t]*"
    r"(?P<title>[^\n]{0,60}?(?:[Dd]irector|[Mm]anager|[Hh]ead|[Ll]ead|[Oo]fficer|VP|President|CEO|CFO|CTO|CIO|COO|"
    r"[Cc]ontroller|[Cc]ounsel|[Ee]ngineer|[Aa]rchitect|主任|经理|总监|处长|部长|科长|院长|主管|负责人|总裁|总经理|董事长)"
    r"[^\n]{0,40})$",
    re.M,
)


def join_signatures(text: str) -> str:
    """A signature block ("Linda Marsh" over "IT Director, Kestrel Precision", "陈立新" over
    "信息科主任") written as one line, "Linda Marsh (IT Director, Kestrel Precision)", so the
    sender and their title are read together."""
    return _SIGNATURE.sub(lambda m: f"{m.group('name')}（{m.group('title').strip()}）"
                          if re.match(r"[\u4e00-\u9fff]", m.group("name"))
                          else f"{m.group('name')} ({m.group('title').strip()})", text)  # fmt: skip


def expand_shorthand(text: str) -> str:
    """``text`` with note-taking abbreviations written out."""
    for pattern, repl in _SHORT:
        text = pattern.sub(_cased(repl), text)
    return text


def _cased(repl: str) -> Callable[[re.Match[str]], str]:
    """The replacement, capitalised when the abbreviation was ("Dir." -> "Director")."""

    def sub(m: re.Match[str]) -> str:
        return repl[0].upper() + repl[1:] if m.group(0)[0].isupper() else repl

    return sub


JOKE = re.compile(
    r"\b(?:just kidding|kidding|joked?|joking|lol|lmao|haha+|jk)\b|开玩笑|哈哈|逗你|说笑", re.I
)
_BRACKETED = re.compile(r"\s*[（(][^（()）]*[)）]")
_PIECES = re.compile(r"(\s+[-–—]\s+|[;；，,]\s*|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])|\.\s+)")


_TRAILING_LAUGH = re.compile(r"\s+(?:lol|lmao|haha+)[\s!.]*$|(?:哈哈+)[\s!.。！]*$", re.I)
_FIGURE = re.compile(
    r"\d|[一二三四五六七八九十百千万亿两]|\b(?:million|billion|thousand|grand)\b", re.I
)


def without_jokes(sentence: str) -> str:
    """``sentence`` without the pieces that joke ("he joked 'a billion dollars' lol"); a
    piece that is only a joke marker ("lol", "哈哈") voids the piece before it too.
    Empty when nothing serious is left. A joke in brackets is only itself: "梁家輝（唔係明星嗰個
    haha）" keeps the name."""
    sentence = _BRACKETED.sub(lambda m: "" if JOKE.search(m.group(0)) else m.group(0), sentence)
    parts = _PIECES.split(sentence)
    pieces, seps = parts[0::2], parts[1::2] + [""]
    keep = [True] * len(pieces)
    for i, piece in enumerate(pieces):
        plain = _TRAILING_LAUGH.sub("", piece)
        if plain != piece and not JOKE.search(plain) and not _FIGURE.search(plain):
            pieces[i] = plain  # "Alejandro only does whatsapp never email lol": a laugh, no joke
            continue
        if JOKE.search(piece):
            keep[i] = False
            bare = JOKE.sub("", piece).strip(" !.,。！，'\"")
            if not bare and i > 0:
                keep[i - 1] = False
    out = "".join(p + s for p, s, k in zip(pieces, seps, keep, strict=True) if k)
    return out.strip(" ,;，；-–—")
