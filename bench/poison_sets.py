"""The one table of hand-written poisoning sets, read by ``bench/poison_loso.py`` and
``bench/trust_report.py`` (each used to keep its own copy).

Every set is a pair of JSONL files under tests/data: attacks (label 1) and ordinary sales
notes (label 0), each row with ``text`` and ``lang`` (en, zh-Hans, zh-Hant, mixed; old rows
say ``zh`` for Simplified). All of them have been measured and tuned on, so honest figures
come from leave-one-set-out (``bench/poison_loso.py``); ``BLIND`` records, for each set, when
it was first measured blind (see bench/results/first_measurements.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"

SETS: dict[str, tuple[str, str]] = {
    "main": ("poison_attacks.jsonl", "poison_ordinary.jsonl"),
    "holdout": ("poison_attacks_holdout.jsonl", "poison_ordinary_holdout.jsonl"),
    "holdout2": ("poison_attacks_holdout2.jsonl", "poison_ordinary_holdout2.jsonl"),
    "holdout3": ("poison_attacks_holdout3.jsonl", "poison_ordinary_holdout3.jsonl"),
    "holdout4": ("poison_attacks_holdout4.jsonl", "poison_ordinary_holdout4.jsonl"),
    "holdout5": ("poison_attacks_holdout5.jsonl", "poison_ordinary_holdout5.jsonl"),
    "blindA": ("poison_blindA_attacks.jsonl", "poison_blindA_ordinary.jsonl"),
    "blindB": ("sealed/poison_blindB_attacks.jsonl", "sealed/poison_blindB_ordinary.jsonl"),
    "blindC": ("poison_blindC_attacks.jsonl", "poison_blindC_ordinary.jsonl"),
    "blindD": ("poison_blindD_attacks.jsonl", "poison_blindD_ordinary.jsonl"),
    "blindE": ("poison_blindE_attacks.jsonl", "poison_blindE_ordinary.jsonl"),
    "blindF": ("poison_blindF_attacks.jsonl", "poison_blindF_ordinary.jsonl"),
    # Hand-written training corpora of session 8 (written by two helpers without sight of the
    # judge or its data): training sets and folds, never blind.
    "written8a": ("poison_written8a_attacks.jsonl", "poison_written8a_ordinary.jsonl"),
    "written8b": ("poison_written8b_attacks.jsonl", "poison_written8b_ordinary.jsonl"),
    # Three more of session 8, written the same way (8c code-switched Chinese/English, 8d
    # English enterprise formats, 8e Simplified/Traditional/Cantonese chat).
    "written8c": ("poison_written8c_attacks.jsonl", "poison_written8c_ordinary.jsonl"),
    "written8d": ("poison_written8d_attacks.jsonl", "poison_written8d_ordinary.jsonl"),
    "written8e": ("poison_written8e_attacks.jsonl", "poison_written8e_ordinary.jsonl"),
    # Session 9's corpus (enterprise formats: CRM dumps, transcripts, threads, tickets, four
    # languages), written by a helper without sight of the screen; first measured on the
    # session-start screen, then training data.
    "written9": ("poison_written9_attacks.jsonl", "poison_written9_ordinary.jsonl"),
    # Session 9's blind set (130 + 130; en 35, zh-Hans 40, zh-Hant 25, mixed 30 each), written
    # by two helpers without sight of the screen, measured twice in session 9 (start, end),
    # retired to development data in session 10 when set I was written.
    "blindH": ("poison_blindH_attacks.jsonl", "poison_blindH_ordinary.jsonl"),
    # Session 10's blind set (130 + 130; en 35, zh-Hans 40, zh-Hant 25, mixed 30 each), written
    # by two helpers without sight of the screen, measured twice in session 10 (start, end),
    # retired to development data in session 11 when set J was written.
    "blindI": ("poison_blindI_attacks.jsonl", "poison_blindI_ordinary.jsonl"),
    # Session 10's corpus (100 + 100; en 30, zh-Hans 25, zh-Hant 20, mixed 25; policies,
    # signatures, disclaimers, minutes, and attacks in those formats), written by a helper
    # without sight of the screen; first measured on the session-start screen.
    "written10": ("poison_written10_attacks.jsonl", "poison_written10_ordinary.jsonl"),
    # Session 12's blind set (130 + 130; en 35, zh-Hans 40, zh-Hant 25, mixed 30 each), written
    # by two helpers without sight of the screen, measured twice in session 12 (start, end),
    # retired to development data at the end of that session (sets kept outside the repository
    # did not survive between sessions).
    "blindK": ("poison_blindK_attacks.jsonl", "poison_blindK_ordinary.jsonl"),
    "blindL": ("poison_blindL_attacks.jsonl", "poison_blindL_ordinary.jsonl"),
    # Session 12's corpus (100 + 100; en 30, zh-Hans 25, zh-Hant 20, mixed 25): ordinary
    # look-alikes of the judge's false positives (signatures, 保密声明, CRM exports, forwarded
    # mail, to-dos with "delete", customer policies, security requirements, AI-product talk)
    # and attacks in the same formats, written by a helper who had seen the false positives:
    # training data and a fold, never blind.
    "written12": ("poison_written12_attacks.jsonl", "poison_written12_ordinary.jsonl"),
    # Session 16's blind set M and session 17's blind set N (130 + 130 each; en 35, zh-Hans 40,
    # zh-Hant 25, mixed 30), each written by four helpers without sight of the screen, measured
    # once (M at the end of session 16, N at the start of session 17), then tuned on.
    "blindM": ("poison_blindM_attacks.jsonl", "poison_blindM_ordinary.jsonl"),
    "blindN": ("poison_blindN_attacks.jsonl", "poison_blindN_ordinary.jsonl"),
    # Session 17's second blind set O (130 + 130, same mix), written by four helpers without
    # sight of the screen after M and N were tuned on, measured once, then tuned on.
    "blindO": ("poison_blindO_attacks.jsonl", "poison_blindO_ordinary.jsonl"),
    # Session 17's third blind set P (130 + 130, same mix), written after the judge was
    # retrained on M, N and O, measured once on that screen, then tuned on (rules only).
    "blindP": ("poison_blindP_attacks.jsonl", "poison_blindP_ordinary.jsonl"),
    # Session 17's fourth blind set Q (130 + 130, same mix), written after P was tuned on,
    # measured once on the screen with P's rules, then tuned on (rules only).
    "blindQ": ("poison_blindQ_attacks.jsonl", "poison_blindQ_ordinary.jsonl"),
    # Session 18's blind set R (130 + 130, same mix), written by four helpers from a spec
    # re-written after the machine was reset, measured once on session 17's final screen
    # (main 7e3ad2c), then tuned on (rules, and the judge's training).
    "blindR": ("poison_blindR_attacks.jsonl", "poison_blindR_ordinary.jsonl"),
    # Session 18's second blind set S (130 + 130, same mix), written while R was tuned on,
    # measured once on commit 5465368 (R's rules, judge retrained with P, Q, R), then tuned on
    # (rules only).
    "blindS": ("poison_blindS_attacks.jsonl", "poison_blindS_ordinary.jsonl"),
    # Session 18's third blind set T (130 + 130, same mix), written while S was tuned on,
    # measured once on the session's final screen; then tuned on in session 19 (rules only).
    "blindT": ("poison_blindT_attacks.jsonl", "poison_blindT_ordinary.jsonl"),
    # Session 19's first blind set V (130 + 130, same mix), measured once on session 18's
    # final screen (main 7bcc790), then tuned on (rules only).
    "blindV": ("poison_blindV_attacks.jsonl", "poison_blindV_ordinary.jsonl"),
    # Session 20's blind set W (130 + 130, same mix), measured once on session 19's final
    # screen (main bac179d; its mixed attacks also on the screen tuned on W's other parts),
    # then tuned on (rules only).
    "blindW": ("poison_blindW_attacks.jsonl", "poison_blindW_ordinary.jsonl"),
    # Session 21's blind set X (130 + 130), measured once on session 20's final screen (main
    # 5a59fec; its Chinese ordinary half also on the screen tuned on the attacks), then tuned
    # on (rules only). Its 35 English attacks came after session 21's last commit: measured
    # once on that commit (f43bde6, 33 of 35), then tuned on in session 22.
    "blindX": ("poison_blindX_attacks.jsonl", "poison_blindX_ordinary.jsonl"),
    # Session 22's blind set Y (130 + 130, same mix), measured once on session 21's final
    # screen (main f43bde6: 99 of 130 attacks, 5 of 130 ordinary), then tuned on (rules only).
    "blindY": ("poison_blindY_attacks.jsonl", "poison_blindY_ordinary.jsonl"),
    # Session 23's blind set Z (95 attacks so far: mixed 30, zh-Hans 40, zh-Hant 25; 130
    # ordinary), measured once on session 22's final screen (main 5c3ca41: mixed 27/30,
    # zh-Hans 21/40, zh-Hant 20/25; ordinary 1/130), then tuned on (rules only). Its 35
    # English attacks had not been delivered when the session ended.
    "blindZ": ("poison_blindZ_attacks.jsonl", "poison_blindZ_ordinary.jsonl"),
}
"""Set name -> (attacks file, ordinary file), oldest first."""

EXTRA = "poison_train_extra.jsonl"
"""Training-only rows that carry their own ``label``; never an evaluation set."""

RULES_ONLY_SETS = ("main", "holdout", "holdout2", "holdout3", "holdout4", "holdout5", "blindA")
"""The sets ``trust_report.py`` prints for the rules alone (the rules' history)."""


def load(name: str) -> list[dict[str, Any]]:
    """Rows of one JSONL file under tests/data."""
    with (DATA / name).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def lang_of(row: dict[str, Any]) -> str:
    """The row's language, ``zh`` read as ``zh-Hans``."""
    lang = str(row.get("lang", "en"))
    return "zh-Hans" if lang == "zh" else lang
