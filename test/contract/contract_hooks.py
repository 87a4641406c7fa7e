"""Schemathesis hooks of the contract runs (test/contract/run-schemathesis.ts loads them).

A run request has rules JSON Schema cannot state about a list's last item or across fields: the
last message is the user's and has text, `tool` messages only continue a task, `system` and
`developer` need the agent's consent, client tools have names of their own and run fast. The
service answers 400 to a body that breaks them (the documented 400s). So that positive cases test
what a run does rather than those 400s, each positive body of a run operation is made to follow
the rules; its other fields stay as generated. Negative cases are left alone. A positive case's
`Idempotency-Key` is made unique: hypothesis repeats values, and a key reused with another body is
the documented 422.
"""

import copy
import uuid

import schemathesis
from schemathesis.generation.modes import GenerationMode

RUN_OPERATIONS = {
    "POST /api/run": ("client_tools", False),
    "POST /api/run/async": ("client_tools", False),
    "POST /api/v1/widget/run": ("client_tools", False),
    "POST /api/ag-ui/run": ("tools", True),
}
USER_TEXT = "Hello from the contract run"


def _is_positive(case) -> bool:
    # A case can be positive overall yet carry one negative component (an unexpected header): left alone too.
    meta = case.meta
    return (
        meta is not None
        and meta.generation.mode == GenerationMode.POSITIVE
        and all(info.mode == GenerationMode.POSITIVE for info in meta.components.values())
    )


def _has_text(message) -> bool:
    return isinstance(message.get("content"), str) and message["content"].strip() != ""


def _runnable(body: dict, tools_field: str, ag_ui: bool) -> None:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return
    kept = [m for m in messages if isinstance(m, dict) and m.get("role") in ("user", "assistant")][:999]
    if not kept or kept[-1].get("role") != "user" or not _has_text(kept[-1]):
        kept.append({"role": "user", "content": USER_TEXT})
    body["messages"] = kept
    tools = body.get(tools_field)
    if isinstance(tools, list) and tools:
        # Unique, and never a built-in tool's name: the prefix keeps both (and adds no `__`).
        for i, tool in enumerate(tools):
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                tool["name"] = f"c{i}-{tool['name']}"[:64]
        options = body.get("forwardedProps") if ag_ui else body
        if isinstance(options, dict) and options.get("mode") == "deep":
            options["mode"] = "fast"
        if not ag_ui and "multitask_strategy" in body:
            body["multitask_strategy"] = "reject"


@schemathesis.hook
def map_case(context, case):
    rule = RUN_OPERATIONS.get(case.operation.label)
    if rule and _is_positive(case) and isinstance(case.body, dict):
        # A copy: the coverage phase shares one body between cases, negative ones among them.
        case.body = copy.deepcopy(case.body)
        _runnable(case.body, *rule)
        for name, value in list((case.headers or {}).items()):
            if name.lower() == "idempotency-key" and isinstance(value, str):
                case.headers = {**case.headers, name: f"{value[:218]}-{uuid.uuid4()}"}
    return case
