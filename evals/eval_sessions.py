"""Session memory benchmark: 60 scripted sales turns through the real prompt_assembly node.

For each turn it prints the tokens of the full history (system prompt plus every
message so far, what an unmanaged agent would send) against the tokens of the
prompt prompt_assembly built, measured with the real tokenizer. At the end it
checks which of the 12 planted must-keep facts appear in the final prompt.

Target (issue 4): assembled <= 25% of the full history at turn 60, 12/12 facts.

The graph is a minimal real LangGraph StateGraph with an in-memory
checkpointer: a turn counter (stands in for query_rewrite), prompt_assembly,
a scripted fake model (no LLM) that sometimes calls a CRM tool, the tool node,
and the after_reply hook (rules only: no model). Run:

    memagent eval sessions [--lang en|zh|both] [--json]
    memagent eval sessions --stories [--story ID] [--llm]   (sales stories: eval_stories)
    .venv/bin/python bench/session_bench.py [en|zh|both]
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from memagent.core.context import Context
from memagent.core.state import InputState, State
from memagent.llm.tokens import content_text, count_message_tokens
from memagent.nodes.prompt_assembly import _system_text, make_after_reply, prompt_assembly

TURNS = 60
TARGET_RATIO = 0.25

# (turn, user message, needle that must be in the final prompt); needle None = not a fact.
PLANTED: dict[str, list[tuple[int, str, str | None]]] = {
    "en": [
        (2, "Please keep every proposal under 500 words.", "500 words"),
        (4, "Our budget for this project is $120,000.", None),
        (6, "The decision-maker is Maria Lopez, their CFO.", "Maria Lopez"),
        (8, "The order number is PO-4471.", "PO-4471"),
        (11, "We need 40 seats for the sales team.", "40 seats"),
        (14, "The contract must be signed by March 31.", "March 31"),
        (17, "We prefer quarterly billing.", "quarterly billing"),
        (20, "Never mention competitor pricing in emails to them.", "competitor pricing"),
        (23, "They want a 3-year contract term.", "3-year"),
        (26, "The maximum discount we can offer is 15%.", "15%"),
        (30, "Actually, the budget is $135,000 after the CFO's approval.", "$135,000"),
        (33, "Customer data must stay in the Frankfurt region.", "Frankfurt"),
        (38, "The demo is scheduled on Thursday at 10:00.", "Thursday at 10:00"),
        (41, "If we had more money we'd buy 80 seats.", None),
        (44, "Nice weather today, haha. Have a good weekend!", None),
    ],
    "zh": [
        (2, "请把每份方案控制在500字以内。", "500字"),
        (4, "我们这个项目的预算是12万美元。", None),
        (6, "决策人是李娜，他们的财务总监。", "李娜"),
        (8, "订单号是PO-4471。", "PO-4471"),
        (11, "销售团队需要40个席位。", "40个席位"),
        (14, "合同必须在3月31日之前签署。", "3月31日"),
        (17, "我们更喜欢按季度付款。", "按季度付款"),
        (20, "给他们的邮件里不要提竞争对手的价格。", "竞争对手的价格"),
        (23, "他们想签3年的合同。", "3年的合同"),
        (26, "我们最多能给15%的折扣。", "15%"),
        (30, "其实预算已经调整为13.5万美元，财务总监批准了。", "13.5万美元"),
        (33, "客户数据必须存放在法兰克福区域。", "法兰克福"),
        (38, "演示安排在周四上午10点。", "周四上午10点"),
        (41, "要是我们有更多钱，就买80个席位。", None),
        (44, "今天天气不错，哈哈，周末愉快！", None),
    ],
}
STALE = {"en": ["$120,000", "80 seats"], "zh": ["12万美元", "80个席位"]}
TOOL_TURNS = {9, 27, 47}

FILLER = {
    "en": [
        "How does your platform handle single sign-on with Okta?",
        "Can you outline the onboarding plan for a team of their size?",
        "What does the standard support SLA look like?",
        "How do we usually position the analytics add-on against their current tool?",
        "Draft three talking points for the next call with their IT team.",
        "What integrations with Salesforce do we offer out of the box?",
        "How long does a typical rollout take for a mid-sized company?",
        "What are the main risks in this deal right now?",
        "Summarise the security certifications we can mention.",
        "How should I answer if they ask about uptime history?",
        "What training options can we include in the package?",
        "Give me a short agenda for the kickoff workshop.",
    ],
    "zh": [
        "你们的平台怎么和Okta做单点登录？",
        "按他们团队的规模，上线培训计划大概怎么安排？",
        "标准的技术支持服务级别是怎样的？",
        "分析插件和他们现在用的工具相比，我们应该怎么定位？",
        "帮我起草下次和他们IT团队通话的三个要点。",
        "我们和Salesforce有哪些开箱即用的集成？",
        "中型公司一般上线要多长时间？",
        "这单目前最大的风险是什么？",
        "总结一下我们可以提到的安全认证。",
        "如果他们问到历史可用性，我该怎么回答？",
        "套餐里可以包含哪些培训选项？",
        "给启动会列一个简短的议程。",
    ],
}

REPLY = {
    "en": [
        "Good question. Here is how I would approach it.",
        "Start with the business outcome they care about most, then connect each feature "
        "to that outcome with a concrete example from a similar customer.",
        "Keep the technical detail short in the first pass and offer a follow-up session "
        "with a solutions engineer for the deeper questions.",
        "It also helps to confirm who else needs to be involved, so that procurement and IT "
        "are not surprised late in the process.",
        "If you want, I can turn this into a short email or a one-page outline you can "
        "share after the call.",
        "Let me know which of these points you want to expand.",
    ],
    "zh": [
        "好问题，我建议这样处理。",
        "先从他们最关心的业务结果讲起，再把每个功能和这个结果联系起来，并举一个类似客户的具体例子。",
        "第一轮沟通里技术细节尽量简短，更深入的问题可以约解决方案工程师另开一次会议。",
        "另外最好确认还有哪些人需要参与，避免采购和IT部门在后期才发现问题。",
        "如果需要，我可以把这些整理成一封简短的邮件或者一页纸的提纲，方便你会后发给他们。",
        "告诉我你想展开哪几点。",
    ],
}


def script(lang: str) -> list[str]:
    """The 60 user messages: planted facts at fixed turns, filler questions between."""
    planted = {turn: text for turn, text, _ in PLANTED[lang]}
    tool_ask = {
        "en": "Look up the current status of order PO-4471 in the CRM.",
        "zh": "在CRM里查一下订单PO-4471的当前状态。",
    }[lang]
    out = []
    for turn in range(1, TURNS + 1):
        if turn in planted:
            out.append(planted[turn])
        elif turn in TOOL_TURNS:
            out.append(tool_ask)
        else:
            out.append(FILLER[lang][turn % len(FILLER[lang])])
    return out


def scripted_reply(lang: str, turn: int) -> str:
    parts = REPLY[lang]
    body = [parts[(turn + i) % (len(parts) - 2) + 1] for i in range(3)]
    sep = "" if lang == "zh" else " "
    return sep.join([parts[0], *body, parts[-1]])


def build(lang: str) -> Any:
    """A minimal real graph around prompt_assembly, with a scripted model and a CRM tool."""

    async def begin(state: State) -> dict[str, Any]:
        return {"turn": state.turn + 1}

    async def llm(state: State) -> dict[str, Any]:
        last = state.messages[-1]
        if state.turn in TOOL_TURNS and isinstance(last, HumanMessage):
            call = {"name": "crm_order", "args": {"po": "PO-4471"}, "id": f"call-{state.turn}"}
            return {"messages": [AIMessage("", tool_calls=[call])]}
        assert state.prompt and isinstance(state.prompt[0], SystemMessage)
        return {"messages": [AIMessage(scripted_reply(lang, state.turn))]}

    async def tools(state: State) -> dict[str, Any]:
        last = state.messages[-1]
        assert isinstance(last, AIMessage)
        results = [
            ToolMessage(
                '{"po": "PO-4471", "status": "awaiting signature", "seats": 40, '
                '"owner": "deal desk", "last_update": "2026-01-09"}',
                tool_call_id=c["id"],
                name=c["name"],
            )
            for c in last.tool_calls
        ]
        return {"messages": results}

    def route(state: State) -> str:
        last = state.messages[-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else "after"

    builder = StateGraph(State, context_schema=Context, input_schema=InputState)
    builder.add_node("begin", begin)
    builder.add_node("prompt_assembly", prompt_assembly)
    builder.add_node("llm", llm)
    builder.add_node("tools", tools)
    builder.add_node("after", make_after_reply(lambda: None))
    builder.add_edge(START, "begin")
    builder.add_edge("begin", "prompt_assembly")
    builder.add_edge("prompt_assembly", "llm")
    builder.add_conditional_edges("llm", route, ["tools", "after"])
    builder.add_edge("tools", "llm")
    builder.add_edge("after", END)
    return builder.compile(checkpointer=InMemorySaver())


def _full_tokens(system: str, messages: list[BaseMessage]) -> int:
    return count_message_tokens([SystemMessage(system), *messages], reply_priming=True)


async def arun(lang: str, *, context_window: int = 8192, verbose: bool = False) -> dict[str, Any]:
    if lang not in PLANTED:
        raise ValueError(f"unknown language {lang!r}; expected one of {sorted(PLANTED)}")
    graph = build(lang)
    ctx = Context(user_id="bench", customer_id="acme", context_window=context_window)
    config = {"configurable": {"thread_id": f"session-bench-{lang}"}}
    system = _system_text(Runtime(context=ctx), [])
    rows = []
    state: dict[str, Any] = {}
    for turn, text in enumerate(script(lang), start=1):
        before = (await graph.aget_state(config)).values.get("messages", [])
        full = _full_tokens(system, [*before, HumanMessage(text)])
        state = await graph.ainvoke({"messages": [HumanMessage(text)]}, config, context=ctx)
        rows.append({"turn": turn, "full_tokens": full, "prompt_tokens": state["prompt_tokens"]})
        if verbose:
            r = rows[-1]
            print(
                f"{lang} turn {turn:2d}  full {r['full_tokens']:6d}  assembled "
                f"{r['prompt_tokens']:5d}  ratio {r['prompt_tokens'] / r['full_tokens']:.2f}"
            )
    final = "\n".join(content_text(m.content) for m in state["prompt"])
    facts = [needle for _, _, needle in PLANTED[lang] if needle]
    present = [f for f in facts if f in final]
    last = rows[-1]
    ratio = last["prompt_tokens"] / last["full_tokens"]
    return {
        "lang": lang,
        "turns": len(rows),
        "context_window": context_window,
        "rows": rows,
        "full_tokens": last["full_tokens"],
        "prompt_tokens": last["prompt_tokens"],
        "ratio": round(ratio, 3),
        "ratio_max_last10": round(
            max(r["prompt_tokens"] / r["full_tokens"] for r in rows[-10:]), 3
        ),
        "facts_total": len(facts),
        "facts_present": len(present),
        "missing": [f for f in facts if f not in present],
        "stale_present": [s for s in STALE[lang] if s in final],
        "working_version": state["working"].get("version"),
        "summarized_messages": len(state["summarized_ids"]),
        "target_met": ratio <= TARGET_RATIO and len(present) == len(facts),
        "final_prompt": final,
    }


def run_session_bench(lang: str = "en", *, context_window: int = 8192) -> dict[str, Any]:
    """Run the benchmark for one language (from sync code; use ``arun`` inside a loop)."""
    return asyncio.run(arun(lang, context_window=context_window))


def summary_line(r: dict[str, Any]) -> str:
    return (
        f"[{r['lang']}] turn {r['turns']}: full history {r['full_tokens']} tokens, "
        f"assembled {r['prompt_tokens']} tokens ({r['ratio']:.1%}; worst of the last 10 "
        f"turns {r['ratio_max_last10']:.1%}), planted facts "
        f"{r['facts_present']}/{r['facts_total']} in final prompt"
        + (f", missing {r['missing']}" if r["missing"] else "")
        + (f", stale values also present {r['stale_present']}" if r["stale_present"] else "")
        + f", target {'met' if r['target_met'] else 'NOT met'}"
    )


def main(argv: list[str]) -> int:
    langs = ["en", "zh"] if not argv or argv[0] == "both" else argv[:1]
    results = [asyncio.run(arun(lang, verbose=True)) for lang in langs]
    print()
    for r in results:
        print(summary_line(r))
    return 0 if all(r["target_met"] for r in results) else 1


def sessions_cmd(
    ctx: typer.Context,
    lang: Annotated[str, typer.Option(help="en, zh or both")] = "both",
    context_window: Annotated[int, typer.Option(help="Context window budgeted for.")] = 8192,
    stories: Annotated[
        bool,
        typer.Option(
            "--stories",
            help="Run the multi-session sales stories through the real agent instead: notes "
            "over several sessions (a budget correction, a new prospect), then questions in "
            "fresh sessions; scores facts recalled, corrections and leaks.",
        ),
    ] = False,
    story: Annotated[
        list[str] | None, typer.Option(help="With --stories: only this story (repeatable).")
    ] = None,
    llm: Annotated[
        bool,
        typer.Option(
            "--llm",
            help="With --stories: answer the questions with the real local model and score "
            "whether the reply states the current value (slow).",
        ),
    ] = False,
    workdir: Annotated[
        Path | None,
        typer.Option(help="With --stories: keep each story's home here (default: a temp dir)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """The 60-turn session bench (full-history vs assembled prompt tokens, planted facts),
    or with --stories the multi-session sales stories through the agent's own memory."""
    if lang not in ("en", "zh", "both"):
        raise typer.BadParameter("--lang must be en, zh or both")
    if stories:
        _stories(ctx, lang, story or [], llm, workdir, as_json)
        return
    if story or llm or workdir:
        raise typer.BadParameter("--story, --llm and --workdir go with --stories")
    langs = ["en", "zh"] if lang == "both" else [lang]
    results = [run_session_bench(code, context_window=context_window) for code in langs]
    if as_json:
        slim = [{k: v for k, v in r.items() if k not in ("rows", "final_prompt")} for r in results]
        sys.stdout.write(json.dumps(slim, ensure_ascii=False, indent=2) + "\n")
    else:
        for r in results:
            print(summary_line(r))
    if not all(r["target_met"] for r in results):
        raise typer.Exit(1)


def _stories(
    ctx: typer.Context, lang: str, ids: list[str], llm: bool, workdir: Path | None, as_json: bool
) -> None:
    from memagent.evals import eval_stories
    from memagent.evals.evaluation import command_settings

    try:
        chosen = eval_stories.pick(ids, lang)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--story") from None
    results = eval_stories.run_stories(
        command_settings(ctx), stories=chosen, real_llm=llm, workdir=workdir
    )
    if as_json:
        sys.stdout.write(json.dumps(eval_stories.as_json(results), ensure_ascii=False) + "\n")
    else:
        print("\n".join(eval_stories.report_lines(results)))
