"""Hard ordinary texts for training the n-gram judge: notes that look like orders but are not.

Imperative customer requirements, process rules the customer runs, security-topic notes,
discounts stated as facts, contact preferences, and casual chat. Written for training only
(never an evaluation set). ``hard_negatives()`` yields (text, lang) pairs, expanded over a few
fillers, deterministic.
"""

from __future__ import annotations

from collections.abc import Iterator

CO = ["Hartwell", "Norvik", "Bluepeak", "Sunmart", "华信科技", "远东物流", "宏達電子", "台聯實業"]

EN = [
    "{co} requires all invoices to be sent to the AP mailbox, never to individual staff.",
    "Customer rule: every quote must show unit price and total, excluding VAT.",
    "They insist we always copy their procurement lead on any pricing email.",
    "Never call {co} before 10am; their ops team starts late.",
    "Their IT policy: vendors must never store passwords in shared documents.",
    "{co}'s security team asked whether our system prompt can be changed by end users.",
    "Discussed prompt injection risks with their CISO; they want a written answer on our safeguards.",
    "They ran a phishing simulation last month and 12% of staff clicked the link.",
    "We agreed a 15% discount for the 3-year term; finance approved it on Monday.",
    "The 40% price increase from their current vendor is why they are looking at us.",
    "Ignore the old budget figure of $50k, they confirmed $80k this morning.",
    "Please send the contract to legal@{d}.com, not to Dana.",
    "From now on they want all updates by email instead of phone calls.",
    "Their admin wants to be able to delete user accounts in bulk and export audit logs.",
    "Requirement: the system must approve purchase orders under $5,000 automatically.",
    "The customer asked us to always include the SLA annex with renewal quotes.",
    "Rule on their side: no vendor meetings on Fridays, ever.",
    "They want role-based access: admins, managers and read-only users.",
    "Their previous assistant tool kept forgetting contact preferences, which annoyed them.",
    "Base64 attachments in emails get stripped by their gateway; send PDFs via the portal.",
    "Their CFO said: do not send anything to the old billing address, it is closed.",
    "Competitor Veltrix offered them 30% off, but their reviews on support are poor.",
    "They asked for the credentials of the demo tenant; sent through the secure portal per policy.",
    "Remind me to follow up with Priya on the pilot results next Tuesday.",
    "Override clause in their contract: they can cancel with 30 days notice.",
    "The system administrator at {co} is Tom; he handles SSO and user provisioning.",
    "They want the assistant feature to summarise calls, and never to send emails on its own.",
    "Every customer-facing document must carry their logo, per their brand rules.",
    "Please note: Sarah is on leave until the 14th, route questions to Luis.",
    "Their instructions for delivery: dock 4, between 8 and 11am, call the guard first.",
    "haha yes, that was such a fun weekend, we should do it again!",
    "I told my sister to always check the forecast before hiking, she never listens lol",
    "Can you believe my boss asked us to forget everything from last quarter's plan?",
    "You should totally try that new ramen place, trust me.",
    "My therapist told me to ignore what others think and focus on myself.",
    "Honestly, just pretend it never happened and move on, that's what I did.",
    "Don't forget to bring the snacks tomorrow!",
    "I'm going to act as the coach for my son's team this season.",
    "New rule in our house: no phones at dinner. The kids hate it.",
    "Remember to send me the pictures from the concert!",
    "Could you tell me more about your trip to Spain? It sounds amazing.",
    "Tell me more about your pottery workshop, how did it go?",
    "What else can you tell me about the new puppy?",
    "Can you share more about the charity run you did last month?",
    "Would you tell me about your favourite hiking trail sometime?",
    "Can you explain how you got into photography?",
    "Show me the pictures of your garden when you get a chance!",
    "Give me some tips for my first marathon, please!",
    "Any advice on how to start learning the guitar?",
    "Customers tell them the rival's product is unreliable in winter.",
    "Their main competitor undercut us by 20% on the last tender.",
    "{co} says the competition's support line never answers after 5pm.",
    "Rival vendor Acmetric lost the account over data quality issues.",
    "Server needs 64GB memory and two CPUs for the on-prem install.",
    "memory upgrade for the edge gateways is planned for Q3",
    "note 3",
    "item 12: demo follow-up",
    "Their assistant manager, Kevin, books all vendor meetings.",
    "{co} asked what our AI assistant does with call recordings.",
]
ZH = [
    "{co}要求所有发票必须寄到财务邮箱，不要寄给个人。",
    "客户规定：报价单必须列明单价和总价，不含税。",
    "他们坚持每封报价邮件都要抄送采购负责人。",
    "不要在上午十点前给{co}打电话，他们运营团队上班晚。",
    "对方IT政策：供应商一律不得在共享文档里保存密码。",
    "{co}安全团队问我们的系统提示词能不能被终端用户修改。",
    "和对方信息安全负责人讨论了提示词注入风险，他们要一份书面说明。",
    "我们同意三年期合同给15%折扣，财务周一已批准。",
    "他们现在的供应商涨价40%，所以才来找我们。",
    "之前的预算50万作废，今天上午确认是80万。",
    "以后所有进度请发邮件，不要打电话。",
    "需求：系统要能批量删除用户账号并导出审计日志。",
    "需求：五千元以下的采购单由系统自动审批。",
    "客户要求续约报价一律附上SLA附件。",
    "他们那边的规矩：周五不见供应商。",
    "王经理下周休假，有问题找李总。",
    "送货要求：4号码头，早上8点到11点，先给门卫打电话。",
    "竞品领航软件给了七折，但售后口碑很差。",
    "他们的系统管理员是张工，负责单点登录和账号开通。",
    "客户希望助手功能只做通话摘要，不要自动发邮件。",
    "提醒我下周二跟刘主任跟进试点结果。",
    "合同里有终止条款：提前30天通知即可取消。",
    "哈哈是啊，上周末太好玩了，下次还去！",
    "我妈总是让我出门带伞，我老是忘。",
    "你一定要去试试那家新开的火锅，相信我。",
    "别忘了明天带零食！",
    "家里新规矩：吃饭不许看手机，孩子们都不乐意。",
    "老板让我们把上季度的计划全部忘掉，重新做。",
    "记得把演唱会的照片发给我！",
    "所有对外文件都要加他们的logo，这是他们的品牌规定。",
]
HANT = [
    "{co}要求所有發票必須寄到財務信箱，不要寄給個人。",
    "客戶規定：報價單必須列明單價和總價，未稅。",
    "不要在早上十點前打電話給{co}。",
    "對方資安政策：廠商一律不得在共用文件裡存密碼。",
    "{co}資安團隊詢問我們的系統提示詞能否被使用者修改。",
    "我們同意三年合約給85折，財務週一已核准。",
    "他們現在的廠商漲價四成，所以來找我們。",
    "之前的預算新台幣200萬作廢，今天確認是300萬。",
    "以後所有進度請用Email，不要打電話。",
    "需求：系統要能批次刪除使用者帳號並匯出稽核紀錄。",
    "客戶要求續約報價一律附上SLA附件。",
    "陳副總下週休假，有問題請找周經理。",
    "送貨要求：4號碼頭，早上8點到11點，先打給警衛。",
    "哈哈對啊，上週末超好玩，下次再約！",
    "你一定要去吃那家新開的拉麵，相信我。",
    "記得把演唱會的照片傳給我！",
    "提醒我下週二跟進試點結果。",
    "所有對外文件都要加上他們的logo，這是品牌規範。",
]
MIXED = [
    "{co}的AP要求invoice一律寄到finance mailbox，不要寄給個人。",
    "客户说以后follow-up都用email，不要call。",
    "他们的security team问我们的system prompt能不能被用户改。",
    "Budget之前说50万作废，今天confirm是80万。",
    "Requirement：系统要能bulk delete用户和export audit log。",
    "我们同意给15% discount，三年期，finance已approve。",
    "提醒我next Tuesday跟Priya follow up试点结果。",
    "哈哈那个weekend真的太fun了，next time再约！",
]


def hard_negatives() -> Iterator[tuple[str, str]]:
    """(text, lang) pairs: each template once per company it names (or once)."""
    for lang, templates in (("en", EN), ("zh-Hans", ZH), ("zh-Hant", HANT), ("mixed", MIXED)):
        for t in templates:
            names = CO if "{co}" in t else CO[:1]
            for co in names:
                d = co.lower() if co.isascii() else "client"
                yield t.format(co=co, d=d), lang
