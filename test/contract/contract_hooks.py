"""Schemathesis hooks of the contract runs (test/contract/run-schemathesis.ts loads them).

A run request has rules JSON Schema cannot state about a list's last item or across fields: the
last message is the user's and has text, `tool` messages only continue a task, `system` and
`developer` need the agent's consent, client tools have names of their own and run fast. The
service answers 400 to a body that breaks them (the documented 400s). So that positive cases test
what a run does rather than those 400s, each positive body of a run operation is made to follow
the rules; its other fields stay as generated. Negative cases are left alone. A positive case's
`Idempotency-Key` is made unique: hypothesis repeats values, and a key reused with another body is
the documented 422. A positive run start that continues a task continues the seeded one (a random
task id is only ever 404), and a positive input answer answers a seeded request that waits for text.
"""

import copy
import json
import os
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
# The seeded ids (test/contract/run-schemathesis.ts): finished tasks runs may continue, requests waiting for text.
SEED = json.loads(os.environ.get("CONTRACT_HOOKS_SEED", "{}"))


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


def _continuing(body: dict, task_id: str, tools_field: str) -> None:
    """A random task id is a 404: continue the seeded task instead, ending its run if one is still going (the
    only strategy that never waits or refuses; client tools need `reject`, so they go)."""
    if "task_id" in body:
        body["task_id"] = task_id
        body["multitask_strategy"] = "interrupt"
        body.pop(tools_field, None)


def _answerable(body: dict, request: dict) -> None:
    """The seeded request's ids, and a text answer: the first such case is accepted, the rest are 409."""
    body.clear()
    body.update(request, input_type="text", value="Ada")


@schemathesis.hook
def map_case(context, case):
    request = SEED.get("answers", {}).get(case.operation.label)
    if request and _is_positive(case) and isinstance(case.body, dict):
        case.body = {}
        _answerable(case.body, request)
    rule = RUN_OPERATIONS.get(case.operation.label)
    if rule and _is_positive(case) and isinstance(case.body, dict):
        # A copy: the coverage phase shares one body between cases, negative ones among them.
        case.body = copy.deepcopy(case.body)
        _runnable(case.body, *rule)
        task_id = SEED.get("run_tasks", {}).get(case.operation.label)
        if task_id:
            _continuing(case.body, task_id, rule[0])
        for name, value in list((case.headers or {}).items()):
            if name.lower() == "idempotency-key" and isinstance(value, str):
                case.headers = {**case.headers, name: f"{value[:218]}-{uuid.uuid4()}"}
    return case
