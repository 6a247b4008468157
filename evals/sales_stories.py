"""Multi-session sales stories for ``memagent eval sessions --stories`` (issue 14 item 5).

Each story is what a salesperson tells the assistant over several sessions: notes about
an account with planted facts, a later correction (the budget changes), and a new
prospect met in a later session. Probes are questions asked afterwards, each in a
fresh session, with what must be recalled (``facts``), what a correction made stale
(``stale``: never presented as current) and what belongs to another account (``absent``).

Needles are matched on normalised text (``memagent.evals.eval_metrics.norm``: NFKC,
lowercase, no spaces or commas); a fact is recalled when any of its needles is in a
recalled item. Plain data: no imports beyond the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Fact:
    """One planted fact: any needle in a recalled item recalls it."""

    label: str
    needles: tuple[str, ...]
    stale: tuple[str, ...] = ()
    """Values a correction replaced: a recalled item carrying one presents it as current."""

    @property
    def corrected(self) -> bool:
        return bool(self.stale)


@dataclass(frozen=True)
class Probe:
    """A question asked in a fresh session about one account."""

    customer: str
    question: str
    facts: tuple[Fact, ...]
    absent: tuple[str, ...] = ()
    """Needles of another account's facts: recalling one here is a leak."""


@dataclass(frozen=True)
class Story:
    id: str
    lang: str
    sessions: tuple[tuple[str, tuple[str, ...]], ...]
    """(customer id, the user's messages of that session), in order."""
    probes: tuple[Probe, ...] = field(default_factory=tuple)


def _f(label: str, *needles: str, stale: tuple[str, ...] = ()) -> Fact:
    return Fact(label, tuple(needles), stale)


STORIES: tuple[Story, ...] = (
    Story(
        "en-acme",
        "en",
        (
            ("acme-logistics", (
                "Met with Acme Logistics today. Their CTO Li Wei is the decision maker. Budget is "
                "1.2 million CNY for the fleet-tracking rollout, decision by end of March. He hates "
                "phone calls, email only.",
                "They currently use Salesforce and were quoted 900k by a competitor. They need SSO "
                "with Okta.",
            )),
            ("acme-logistics", (
                "Update on Acme Logistics: after the CFO review the budget was cut to 1 million CNY.",
            )),
            ("harbor-foods", (
                "New prospect: Harbor Foods. Their VP Operations Maria Chen wants a pilot in two "
                "warehouses. Budget is about $300k.",
            )),
        ),
        (
            Probe("acme-logistics", "Who makes the decision at Acme Logistics?",
                  (_f("decision maker", "li wei"),)),
            Probe("acme-logistics", "How should I contact Acme's CTO?",
                  (_f("contact preference", "email only", "hates phone"),)),
            Probe("acme-logistics", "What is Acme's budget now?",
                  (_f("budget", "1 million cny", "1000000", stale=("1.2 million", "1200000")),)),
            Probe("acme-logistics", "What system does Acme use today, and what did the competitor quote?",
                  (_f("incumbent", "salesforce"), _f("competitor quote", "900k", "900000"))),
            Probe("acme-logistics", "What are Acme's requirements and when do they decide?",
                  (_f("requirement", "okta"), _f("deadline", "march"))),
            Probe("harbor-foods", "What do we know about Harbor Foods' budget and contact?",
                  (_f("budget", "300k", "300000"), _f("stakeholder", "maria chen")),
                  absent=("li wei", "1 million", "okta")),
        ),
    ),
    Story(
        "en-northwind",
        "en",
        (
            ("northwind", (
                "Northwind Freight call: Sandra Okafor (VP Operations) is our champion. Greg "
                "Tillman from IT security is skeptical and wants our SOC 2 report. Budget is "
                "$800k. They run Samsara today.",
                "Next step: I send the security questionnaire answers by Friday. Their contract "
                "with Samsara ends March 31.",
            )),
            ("northwind", (
                "Correction for Northwind: the budget is $650k, not $800k - finance trimmed it.",
            )),
            ("bluepeak", (
                "First call with Bluepeak Energy. Their procurement lead is Omar Haddad; he prefers "
                "WhatsApp over email. They need on-premises deployment.",
            )),
        ),
        (
            Probe("northwind", "Who is our champion at Northwind and who is skeptical?",
                  (_f("champion", "okafor"), _f("skeptic", "tillman"))),
            Probe("northwind", "What is Northwind's budget?",
                  (_f("budget", "650k", "650000", stale=("800k", "800000")),)),
            Probe("northwind", "What does Northwind use today and when does that contract end?",
                  (_f("incumbent", "samsara"), _f("contract end", "march 31", "2027-03-31",
                                                  "03-31"))),
            Probe("northwind", "What did I promise Northwind?",
                  (_f("commitment", "questionnaire"),)),
            Probe("bluepeak", "How do I reach Bluepeak's procurement lead, and what do they need?",
                  (_f("contact preference", "whatsapp"), _f("requirement", "on-premises",
                                                            "on-prem"),
                   _f("stakeholder", "omar haddad")),
                  absent=("okafor", "samsara", "650k")),
        ),
    ),
    Story(
        "en-orion",
        "en",
        (
            ("orion-foods", (
                "Orion Foods: spoke to Tom Becker, head of procurement. Budget is 2M USD for the "
                "warehouse system. They are also talking to HubSpot.",
                "Their biggest pain is manual inventory counts that take three days every month. "
                "Must-have: integration with SAP.",
            )),
            ("orion-foods", (
                "Orion Foods update: budget went from 2M to 2.5M USD after the board meeting. "
                "Deal is in negotiation now.",
            )),
            ("delta-clinics", (
                "New lead: Delta Clinics. Their CIO Priya Nair is the decision maker; budget is "
                "roughly 400k.",
            )),
        ),
        (
            Probe("orion-foods", "What is Orion's budget?",
                  (_f("budget", "2.5m", "2500000", stale=("2m usd", "2000000")),)),
            Probe("orion-foods", "Who is our contact at Orion Foods?",
                  (_f("stakeholder", "tom becker"),)),
            Probe("orion-foods", "Which competitors is Orion looking at?",
                  (_f("competitor", "hubspot"),)),
            Probe("orion-foods", "What is Orion's main pain point and what must we integrate with?",
                  (_f("pain point", "inventory"), _f("requirement", "sap"))),
            Probe("orion-foods", "Where does the Orion deal stand?",
                  (_f("deal stage", "negotiation"),)),
            Probe("delta-clinics", "Who decides at Delta Clinics and what is their budget?",
                  (_f("decision maker", "priya nair"), _f("budget", "400k", "400000")),
                  absent=("tom becker", "hubspot", "2.5m")),
        ),
    ),
    Story(
        "zh-huaxin",
        "zh",
        (
            ("huaxin", (
                "华信科技的采购负责人是王芳，项目预算大概300万，必须私有化部署，下个月15号之前要报价。",
                "他们现在用的是用友U8，竞争对手是金蝶。",
            )),
            ("huaxin", ("更正一下，华信的预算不是300万，是350万。",)),
            ("lvyuan", ("新客户绿源环保，对接人是信息部的陈静，她只用微信沟通，预算120万左右。",)),
        ),
        (
            Probe("huaxin", "华信的预算是多少？",
                  (_f("预算", "350万", "3500000", stale=("300万", "3000000")),)),
            Probe("huaxin", "华信谁负责采购？", (_f("采购负责人", "王芳"),)),
            Probe("huaxin", "华信对部署有什么要求？什么时候要报价？",
                  (_f("要求", "私有化"), _f("报价截止", "15号", "-15"))),
            Probe("huaxin", "华信现在用什么系统？竞争对手是谁？",
                  (_f("现有系统", "用友"), _f("竞争对手", "金蝶"))),
            Probe("lvyuan", "绿源环保的对接人是谁？怎么联系她？",
                  (_f("对接人", "陈静"), _f("联系方式", "微信")),
                  absent=("王芳", "用友", "350万")),
        ),
    ),
    Story(
        "zh-lanhai",
        "zh",
        (
            ("lanhai", (
                "蓝海物流的CTO王磊是决策人，预算是200万，他们希望明年3月底前上线。",
                "他们最大的痛点是调度靠人工，经常出错。王磊不喜欢开视频会，尽量线下见面。",
            )),
            ("lanhai", ("蓝海物流的预算从200万提到了280万，项目已经进入商务谈判阶段。",)),
            ("ruida", ("新客户瑞达制造，IT总监赵刚对我们比较支持，他们现在用的是SAP。",)),
        ),
        (
            Probe("lanhai", "蓝海物流谁拍板？", (_f("决策人", "王磊"),)),
            Probe("lanhai", "蓝海物流现在的预算是多少？",
                  (_f("预算", "280万", "2800000", stale=("200万", "2000000")),)),
            Probe("lanhai", "蓝海物流什么时候要上线？", (_f("上线时间", "3月", "-03"),)),
            Probe("lanhai", "蓝海物流的痛点是什么？", (_f("痛点", "调度"),)),
            Probe("lanhai", "跟王磊怎么约见面？", (_f("联系偏好", "线下"),)),
            Probe("ruida", "瑞达制造谁支持我们？他们用什么系统？",
                  (_f("支持者", "赵刚"), _f("现有系统", "sap")),
                  absent=("王磊", "280万", "调度")),
        ),
    ),
    Story(
        "zh-jinghong",
        "zh",
        (
            ("jinghong", (
                "景鸿医院信息科的刘主任比较保守，担心数据安全。预算150万，数据必须存在院内。",
                "我们答应周五之前给出详细报价。对手是卫宁，报价130万。",
            )),
            ("jinghong", ("景鸿医院最新消息：预算调整为180万，院长批准了。",)),
            ("kangtai", ("新客户康泰药业，采购部的孙经理只接受邮件，不接电话。他们需要对接金蝶ERP。",)),
        ),
        (
            Probe("jinghong", "景鸿医院的预算现在是多少？",
                  (_f("预算", "180万", "1800000", stale=("150万", "1500000")),)),
            Probe("jinghong", "景鸿医院的刘主任是什么态度？", (_f("态度", "保守"),)),
            Probe("jinghong", "景鸿医院对数据有什么要求？", (_f("要求", "院内"),)),
            Probe("jinghong", "景鸿医院的竞争对手报价多少？", (_f("竞品报价", "卫宁"),)),
            Probe("jinghong", "我们答应景鸿医院什么？", (_f("承诺", "报价"),)),
            Probe("kangtai", "康泰药业的孙经理怎么联系？他们有什么需求？",
                  (_f("联系偏好", "邮件"), _f("需求", "金蝶")),
                  absent=("刘主任", "卫宁", "180万")),
        ),
    ),
)  # fmt: skip
