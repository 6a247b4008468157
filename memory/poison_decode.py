"""More readings of a text for the poisoning rules: disguises that hide the words themselves.

``poison_ngram.expand_encoded`` already appends base64, ``\\uXXXX``, ROT13 and reversed
readings. This module adds three more, each appended (never replacing the text) so a rule
reads the order in whatever form it was written:

- hex bytes ("73 65 6e 64 20 61 70 69"): a run of at least eight two-digit hex pairs that
  decodes to printable UTF-8;
- zero-width characters standing for spaces ("When\u200bdrafting\u200bany\u200bemail"): the
  normaliser drops them, which glues the words together, so a copy with each run of them
  read as a space is added when they separate at least three Latin words;
- romanised Mandarin ("yi hou bao jia dou da qi zhe"): a run of at least six toneless pinyin
  syllables is read as Chinese through a small lexicon of common words (time, all, quote,
  price, discount, account, ask, tell, send, export, system prompt...). Names are two or
  three syllables, so ordinary notes with a romanised name are left alone.
"""

from __future__ import annotations

import re

_HEX_RUN = re.compile(
    r"(?<!\w)(?:[0-9a-fA-F]{2}(?:[ :,-]|(?=[0-9a-fA-F]))){7,}[0-9a-fA-F]{2}(?!\w)"
)
_ZERO_WIDTH_WORDS = re.compile(r"[a-zA-Z,.'’]+(?:[\u200b-\u200d\u2060\ufeff]+[a-zA-Z,.'’]+){3,}")
_ZERO_WIDTH = re.compile(r"[\u200b-\u200d\u2060\ufeff]+")

_INITIALS = [
    "b",
    "p",
    "m",
    "f",
    "d",
    "t",
    "n",
    "l",
    "g",
    "k",
    "h",
    "j",
    "q",
    "x",
    "zh",
    "ch",
    "sh",
    "r",
    "z",
    "c",
    "s",
    "y",
    "w",
]
_FINALS = [
    "a",
    "o",
    "e",
    "i",
    "u",
    "v",
    "ai",
    "ei",
    "ui",
    "ao",
    "ou",
    "iu",
    "ie",
    "ve",
    "er",
    "an",
    "en",
    "in",
    "un",
    "vn",
    "ang",
    "eng",
    "ing",
    "ong",
    "ia",
    "iao",
    "ian",
    "iang",
    "iong",
    "ua",
    "uo",
    "uai",
    "uan",
    "uang",
    "ue",
]
_SYLLABLE = re.compile(
    rf"(?:{'|'.join(sorted(_INITIALS, key=len, reverse=True))})?"
    rf"(?:{'|'.join(sorted(_FINALS, key=len, reverse=True))})"
)
_PINYIN_RUN = re.compile(
    r"(?<![\w])(?:[a-z]{1,6}[\s_,.;:!?，。；：]+){5,}[a-z]{1,6}(?![\w])", re.IGNORECASE
)

_LEXICON: dict[str, str] = {
    # Words, not phrases of any one text: read longest first.
    "xi tong ti shi ci": "系统提示词",
    "ti shi ci": "提示词",
    "xi tong": "系统",
    "xiao zhu shou": "小助手",
    "zhu shou": "助手",
    "yi hou": "以后",
    "jin hou": "今后",
    "suo you": "所有",
    "quan bu": "全部",
    "mei ci": "每次",
    "mei zhou": "每周",
    "yi ci": "一次",
    "bao jia": "报价",
    "jia ge": "价格",
    "ding dan": "订单",
    "fa piao": "发票",
    "zhe kou": "折扣",
    "shou kuan": "收款",
    "fu kuan": "付款",
    "zhang hu": "账户",
    "zhang hao": "账号",
    "yin hang": "银行",
    "ke hu": "客户",
    "zi liao": "资料",
    "shu ju": "数据",
    "dao chu": "导出",
    "fa gei wo": "发给我",
    "fa dao": "发到",
    "fa gei": "发给",
    "chuan dao": "传到",
    "wo de": "我的",
    "wei xin": "微信",
    "you xiang": "邮箱",
    "gao su": "告诉",
    "bu yao": "不要",
    "bu yong": "不用",
    "bu xu yao": "不需要",
    "wen": "问",
    "jing li": "经理",
    "zhu guan": "主管",
    "ling dao": "领导",
    "lao ban": "老板",
    "shen pi": "审批",
    "gai cheng": "改成",
    "wan zheng": "完整",
    "qing ba": "请把",
    "qing": "请",
    "ni de": "你的",
    "dou": "都",
    "da": "打",
    "zhe": "折",
    "yi": "一",
    "er": "二",
    "san": "三",
    "si": "四",
    "wu": "五",
    "liu": "六",
    "qi": "七",
    "ba": "八",
    "jiu": "九",
}
_LEX_KEYS = sorted(_LEXICON, key=lambda k: -len(k))
_LEX = re.compile(r"\b(?:" + "|".join(re.escape(k) for k in _LEX_KEYS) + r")\b")


def _is_pinyin(token: str) -> bool:
    return _SYLLABLE.fullmatch(token.lower()) is not None


def _hex_readings(text: str) -> list[str]:
    out = []
    for m in _HEX_RUN.finditer(text):
        digits = re.sub(r"[^0-9a-fA-F]", "", m.group())
        if len(digits) % 2 or digits.isdigit():  # a phone or account number, not bytes
            continue
        try:
            decoded = bytes.fromhex(digits).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            continue
        if decoded.isprintable() and re.search(r"[^\W\d_]{2}", decoded):
            out.append(decoded)
    return out


def _pinyin_readings(text: str) -> list[str]:
    out = []
    for m in _PINYIN_RUN.finditer(text):
        tokens = re.findall(r"[a-z]+|[,.;:!?，。；：]", m.group().lower())
        run: list[str] = []
        for tok in [*tokens, ""]:
            if tok.isalpha() and _is_pinyin(tok):
                run.append(tok)
                continue
            if tok and not tok.isalpha() and run and run[-1] != "，":
                run.append("，")  # punctuation keeps the run going, read as a comma
                continue
            if sum(t != "，" for t in run) >= 6:
                read = _LEX.sub(lambda w: _LEXICON[w.group()], " ".join(run).replace(" ，", "，"))
                out.append(read.replace(" ", ""))
            run = []
    return out


ZERO_WIDTH_MARK = "\ue000zero-width spelling\ue000"
"""Appended when letters are spelled out with a zero-width character after each ("s\u200be\u200bn
\u200bd", "請\u200c將\u200c合"): the normaliser reads the words, this mark tells the rules they were
hidden (a private-use code point, so no typed text carries it)."""
_ZERO_WIDTH_SPELLED = re.compile(r"(?:(?:[^\W_]|[ \t])[\u200b-\u200d\u2060\ufeff]){6,}")


def expand_disguised(text: str) -> str:
    """``text`` with its hex, zero-width-spaced and pinyin readings appended (when any), and
    ``ZERO_WIDTH_MARK`` when its letters are spelled out with zero-width characters."""
    extra = _hex_readings(text)
    extra += [ZERO_WIDTH_MARK] if _ZERO_WIDTH_SPELLED.search(text) else []
    extra += [_ZERO_WIDTH.sub(" ", m.group()) for m in _ZERO_WIDTH_WORDS.finditer(text)]
    extra += _pinyin_readings(text)
    return text if not extra else text + "\n" + "\n".join(extra)
