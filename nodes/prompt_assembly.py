"""prompt_assembly: build this turn's prompt within a measured token budget.

Order: system -> must-keep slots -> running summary -> recent window -> memory
briefing + current input. The stable text comes first, so the local server reuses its
cached prefix from turn to turn; the per-turn briefing sits in the prompt's copy of the
current user message, right before the words it helps answer, where the bundled 1.5B
model actually uses it (bench/briefing_llm_bench.py). A current input too long for what
the other blocks leave (a message may have 32,000 characters, far more tokens than a
small window) is cut in the prompt's copy, head and tail kept around a note; the stored
message keeps every character. The first three are sections of one leading
SystemMessage (many chat templates reject a second system message); the
recent window keeps whole turns, tool calls paired with their results. Without a
current user message the briefing closes the system message.

On the critical path everything is rules and arithmetic: working memory is
updated by rules, evicted turns are folded into the summary by the rules
summariser. ``after_reply`` (called by the end-of-turn node, after the reply
is out) refines both with the small model for the next turn.

``assemble`` is the pure part (ordering, budgets, trimming, folding), tested
without a graph.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from memagent.core.context import Context
from memagent.core.log_redaction import memagent_logger
from memagent.core.settings import Settings, default_settings
from memagent.core.state import State
from memagent.llm.tokens import Budget, content_text, count_message_tokens, count_tokens
from memagent.memory.working_memory import (
    StaleVersionError,
    WorkingMemory,
    apply_patch,
    expire,
    propose_patch,
    render,
    superseded,
)
from memagent.memory.working_rules import rules_patch
from memagent.nodes.briefing import (
    MAX_BRIEFING_CHARS as MAX_BRIEFING_CHARS,
)
from memagent.nodes.briefing import (
    MAX_BRIEFING_ITEMS as MAX_BRIEFING_ITEMS,
)
from memagent.nodes.briefing import (
    briefing_line as briefing_line,
)
from memagent.nodes.briefing import (
    episode_line as episode_line,
)
from memagent.nodes.briefing import (
    format_briefing as format_briefing,
)
from memagent.nodes.briefing import (
    with_briefing as with_briefing,
)
from memagent.nodes.briefing import (
    without_briefing as without_briefing,
)
from memagent.nodes.messages import stamp_missing
from memagent.nodes.prompt_window import LOW_WATERMARK as LOW_WATERMARK
from memagent.nodes.prompt_window import Placed, fit_lines, folded, placed
from memagent.nodes.prompt_window import fit_input as fit_input
from memagent.nodes.sent_history import as_sent, sent_copies
from memagent.nodes.summary import (
    drop_superseded,
    fold_model,
    pending_messages,
    without_repeats,
)
from memagent.prompts.prompt_assembly import SECTION_SEPARATOR, SUMMARY_HEADER
from memagent.prompts.system import SYSTEM_PROMPT

logger = memagent_logger(__name__)


@dataclass(frozen=True)
class Block:
    """One block of the prompt, measured: ``tokens`` never exceeds ``budget``
    except for the system block and the current input, which are never cut."""

    name: str
    tokens: int
    budget: int
    items: int = 0
    dropped: int = 0


@dataclass(frozen=True)
class Assembled:
    messages: list[BaseMessage]
    blocks: list[Block]
    tokens: int
    """Measured tokens of ``messages``, reply priming included."""
    summary: str
    evicted: list[BaseMessage] = field(default_factory=list)
    over_budget: bool = False
    input_shortened: bool = False
    """The current input did not fit and the prompt holds a shortened copy."""


def assemble(
    *,
    system: str,
    slots: str = "",
    briefing: Sequence[Mapping[str, Any]] = (),
    summary: str = "",
    history: Sequence[BaseMessage] = (),
    current: BaseMessage | None = None,
    budget: Budget,
    must_keep: Sequence[str] = (),
    low_watermark: float = LOW_WATERMARK,
    slot_values: Sequence[str] = (),
    sent: Mapping[str, BaseMessage] | None = None,
) -> Assembled:
    """Order and budget the prompt; fold turns that do not fit into the summary (rules).

    ``history`` is the not-yet-summarised conversation before ``current``; ``sent`` the
    previous prompt's user messages as sent (``sent_copies``), shown in the window instead
    of the stored ones (nodes/sent_history.py, nodes/prompt_window.py).
    The recent window gets what the other blocks leave, up to ``budget.recent``;
    the summary's full budget is reserved so folding never pushes the prompt over.
    Summary lines that only repeat one of ``slot_values`` are not shown twice.
    """
    if not system.strip():
        raise ValueError("the system prompt is empty")
    slots_text, slots_dropped = fit_lines(slots, budget.slots)
    reserve = budget.summary + count_tokens(SUMMARY_HEADER) + 4
    p = placed(
        briefing=briefing,
        fixed=[system, slots_text],
        history=as_sent(history, sent or {}),
        originals=history,
        current=current,
        budget=budget,
        reserve=reserve,
        must_keep=must_keep,
        low_watermark=low_watermark,
    )
    current_msgs = [p.current] if p.current is not None else []
    summary = folded(summary, p.evicted, budget.summary)
    shown = without_repeats(summary, slot_values)
    sections = [system, slots_text, f"{SUMMARY_HEADER}\n{shown}" if shown.strip() else ""]
    if current is None:
        sections.append(p.brief_text)
    head = SystemMessage(SECTION_SEPARATOR.join(t for t in sections if t))
    messages: list[BaseMessage] = [head, *p.window, *current_msgs]
    tokens = count_message_tokens(messages, reply_priming=True)
    return Assembled(
        messages=messages,
        blocks=[
            Block("system", count_tokens(system), budget.total),
            Block("slots", count_tokens(slots_text), budget.slots, dropped=slots_dropped),
            *_middle_blocks(p, shown, current_msgs, budget),
        ],
        tokens=tokens,
        summary=summary,
        evicted=p.evicted,
        over_budget=tokens > budget.total,
        input_shortened=p.shortened,
    )


def _middle_blocks(
    p: Placed, shown_summary: str, current_msgs: Sequence[BaseMessage], budget: Budget
) -> list[Block]:
    """The measured briefing, summary, recent and input blocks."""
    return [
        Block("briefing", count_tokens(p.brief_text), budget.briefing, items=p.brief_items),
        Block("summary", count_tokens(shown_summary), budget.summary),
        Block("recent", count_message_tokens(p.window), p.cap, items=len(p.window)),
        Block("input", count_message_tokens(current_msgs) - p.brief_extra, budget.total),
    ]


def _system_text(
    runtime: Runtime[Context] | None, extra: Sequence[BaseMessage], *, today: date | None = None
) -> str:
    """The system prompt for this run; ``today`` is the date it states (settings' ``today``,
    else the clock)."""
    ctx = getattr(runtime, "context", None) or Context()
    day = (today or date.today()).isoformat()
    text = SYSTEM_PROMPT.format(user_id=ctx.user_id, customer_id=ctx.customer_id, today=day)
    added = [content_text(m.content).strip() for m in extra]
    return SECTION_SEPARATOR.join([text, *[a for a in added if a]])


def _budget(runtime: Runtime[Context] | None, settings: Settings) -> Budget:
    ctx = getattr(runtime, "context", None) or Context()
    return Budget.from_window(ctx.context_window or settings.context_window, settings.reply_tokens)


def _turn(state: State) -> int:
    return state.turn or sum(1 for m in state.messages if isinstance(m, HumanMessage))


def update_working(
    working: Mapping[str, Any], text: str, *, turn: int, now: datetime, ttl_s: float
) -> tuple[WorkingMemory, list[str] | None]:
    """Expire idle slots, then merge the rules patch of the user's new message."""
    wm = WorkingMemory.from_state(working)
    wm, archived = expire(wm, now=now, ttl_s=ttl_s, turn=turn)
    patch = rules_patch(text, turn=turn, current=wm)
    wm, _ = apply_patch(wm, patch, expected_version=wm.version, now=now)
    return wm, archived


async def prompt_assembly(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Update working memory, trim, fold, and assemble this turn's prompt."""
    return await assemble_turn(state, runtime, default_settings())


def make_prompt_assembly(settings: Settings | None = None) -> Callable[..., Any]:
    """prompt_assembly bound to explicit settings (window, reply reserve, TTL)."""

    async def prompt_assembly(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        return await assemble_turn(state, runtime, settings or default_settings())

    return prompt_assembly


async def assemble_turn(
    state: State, runtime: Runtime[Context] | None, settings: Settings
) -> dict[str, Any]:
    """The node's work: stamp, update working memory, trim, fold, assemble."""
    now = datetime.now(UTC)
    turn = _turn(state)
    changed = stamp_missing(state.messages, turn=turn, now=now)
    by_id = {m.id: m for m in changed}
    stamped = [by_id.get(m.id, m) for m in state.messages]
    current = stamped[-1] if stamped and isinstance(stamped[-1], HumanMessage) else None
    wm, archived = update_working(
        state.working,
        content_text(current.content) if current else "",
        turn=turn,
        now=now,
        ttl_s=settings.working_memory_ttl_s,
    )
    if not archived:  # a correction makes the old value's summary lines stale
        old = WorkingMemory.from_state(state.working)
        summary = drop_superseded(state.summary, [(s.turn, s.value) for s in superseded(old, wm)])
    else:
        summary = state.summary
    done = set(state.summarized_ids)
    body = stamped[:-1] if current is not None else stamped
    history = [m for m in body if m.id not in done and not isinstance(m, SystemMessage)]
    result = assemble(
        system=_system_text(
            runtime, [m for m in stamped if isinstance(m, SystemMessage)], today=settings.today
        ),
        slots=render(wm, in_view=content_text(current.content) if current else ""),
        slot_values=[slot.value for _, _, slot in wm.slots()],
        briefing=state.briefing,
        summary=summary,
        history=history,
        current=current,
        budget=_budget(runtime, settings),
        sent=sent_copies(state.prompt),
    )
    update: dict[str, Any] = {
        "prompt": result.messages,
        "prompt_tokens": result.tokens,
        "summary": result.summary,
        "summarized_ids": [*state.summarized_ids, *(m.id for m in result.evicted if m.id)],
        "working": wm.to_state(),
    }
    if changed:
        update["messages"] = changed
    notes = [f"working memory expired: {len(archived)} slots archived"] if archived else []
    if result.input_shortened:
        notes.append("prompt_assembly: the message was shortened to fit the context window")
    if result.over_budget:
        notes.append(f"prompt_assembly: {result.tokens} tokens exceed the budget")
    if notes:
        update["degraded"] = notes
    return update


def wants_model_summaries(settings: Settings) -> bool:
    """Whether these settings ask for model summaries (``MEMAGENT_SUMMARIZER=llm``); else
    the rules results stand."""
    return settings.summarizer == "llm"


def default_small_model(settings: Settings | None = None) -> BaseChatModel | None:
    """The small model of ``settings`` (the documented defaults when None) if they ask for model
    summaries, else None (rules only)."""
    settings = settings or default_settings()
    if not wants_model_summaries(settings):
        return None
    from memagent.llm.adapter import chat_model  # type: ignore[import-not-found,unused-ignore]

    return chat_model(settings, small=True)


def make_after_reply(
    model_factory: Callable[[], BaseChatModel | None] | None = None,
    *,
    settings: Settings | None = None,
) -> Callable[..., Any]:
    """The end-of-turn hook: refine summary and working memory with the small model.

    Runs after the reply, so the reply never waits for it; failures leave the
    rules results in place and are reported in ``degraded``. ``settings`` are the agent's
    (budget, whether to use a model); when None, the documented defaults (never the environment).
    ``model_factory`` defaults to the small model those settings choose.
    """
    if model_factory is None:
        model_factory = functools.partial(default_small_model, settings)

    async def after_reply(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        update: dict[str, Any] = {}
        stamped = stamp_missing(state.messages, turn=_turn(state))  # the reply, on time
        if stamped:
            update["messages"] = stamped
        try:
            model = model_factory()
        except Exception as e:  # noqa: BLE001 - a missing model must not fail the turn
            return {**update, "degraded": [f"after_reply: no small model ({e})"]}
        if model is None:
            return update
        budget = _budget(runtime, settings or default_settings())
        notes: list[str] = []
        pending = pending_messages(state.summary, state.messages, state.summarized_ids)
        if pending:
            try:
                update["summary"] = await fold_model(
                    model, state.summary, pending, max_tokens=budget.summary
                )
            except Exception as e:  # noqa: BLE001
                notes.append(f"summary: model failed, rules summary kept ({e})")
        humans = [m for m in state.messages if isinstance(m, HumanMessage)]
        if humans:
            wm = WorkingMemory.from_state(state.working)
            try:
                patch = await propose_patch(
                    model, wm, content_text(humans[-1].content), turn=_turn(state)
                )
                if patch is not None:
                    new, changes = apply_patch(wm, patch, expected_version=wm.version)
                    if changes:
                        update["working"] = new.to_state()
            except StaleVersionError as e:
                notes.append(f"working memory: {e}")
            except Exception as e:  # noqa: BLE001
                notes.append(f"working memory: model patch failed ({e})")
        if notes:
            update["degraded"] = notes
        return update

    return after_reply


after_reply = make_after_reply()
"""Default end-of-turn hook, run by the graph's ``end_of_turn`` node."""
