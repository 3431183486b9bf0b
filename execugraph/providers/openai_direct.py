"""ChatOpenAI that posts plain chat completions without the OpenAI SDK's per-request params transform.

`client.chat.completions.create` runs `maybe_transform` over the whole request (a walk of every
message against the SDK's TypedDicts), the largest single item of a trial thread's CPU at
concurrency 16. For a request whose fields are JSON scalars and whose messages are plain text,
that walk returns its input unchanged, so `DirectChatOpenAI` sends the same body through the SDK
client's own `post` (same base URL, auth, headers, timeout, retries and status errors) and reads
the JSON answer as a dict, which `ChatOpenAI._create_chat_result` accepts (no LangSmith gateway headers are
read: an OpenAI-compatible server sends none; `response_metadata` lacks the None fields the SDK's typed answer adds
for what the server left out, such as `logprobs`; nothing here reads them). Anything else (tools,
response formats, streams, the Responses API, multimodal content, request options other than
`extra_body`) takes ChatOpenAI's own path.
"""

from __future__ import annotations

from typing import Any

import openai
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from langchain_openai import ChatOpenAI
from langchain_openai.chat_models import base as lc_openai

# Body fields whose values the SDK's transform leaves as they are (scalars, strings, lists of strings).
PLAIN_FIELDS = frozenset({
    "model", "stream", "messages", "seed", "temperature", "max_tokens", "max_completion_tokens", "stop", "top_p", "n",
    "presence_penalty", "frequency_penalty", "logit_bias", "logprobs", "top_logprobs", "user", "service_tier", "store",
})
PLAIN_MESSAGE_KEYS = frozenset({"role", "content", "name"})
# False: clients built from now on are ChatOpenAI itself (benchmarks measure the SDK's path beside this one).
DIRECT_REQUESTS = True


def chat_class() -> type[ChatOpenAI]:
    """The class `execugraph.providers.llm` builds OpenAI-compatible clients from."""
    return DirectChatOpenAI if DIRECT_REQUESTS else ChatOpenAI


def plain_request(payload: dict[str, Any]) -> bool:
    """Whether ChatOpenAI's `payload` is a non-streamed chat completion the SDK's transform would not change."""
    if payload.get("stream") or not set(payload) <= PLAIN_FIELDS | {"extra_body"}:
        return False
    extra = payload.get("extra_body")
    if extra is not None and not isinstance(extra, dict):
        return False
    return all(isinstance(m, dict) and set(m) <= PLAIN_MESSAGE_KEYS and isinstance(m.get("content"), str)
               for m in payload.get("messages") or [None])


class DirectChatOpenAI(ChatOpenAI):  # type: ignore[override]
    """ChatOpenAI whose plain requests skip `maybe_transform`; the same body, answer and errors otherwise."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.include_response_headers or self.client is None:
            return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
        payload = self._get_request_payload(messages, stop=stop, **kwargs)
        if not plain_request(payload) or self._use_responses_api(payload):
            return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
        extra_body = payload.pop("extra_body", None)
        options: dict[str, Any] = {} if extra_body is None else {"extra_json": extra_body}
        try:
            # cast_to=object: the JSON answer as parsed (a dict; the text where the server sent no JSON, as the
            # SDK's typed path gives it, which `_create_chat_result` refuses with its own message)
            response = self.root_client.post("/chat/completions", cast_to=object, body=payload, options=options)
        except openai.BadRequestError as exc:
            lc_openai._handle_openai_bad_request(exc)
        except openai.APIError as exc:
            lc_openai._handle_openai_api_error(exc)
        result = self._create_chat_result(response, {})
        for generation, choice in zip(result.generations, response.get("choices") or [], strict=False):
            # as the SDK's typed answer gives it (its message model always has the field)
            generation.message.additional_kwargs.setdefault("refusal", (choice.get("message") or {}).get("refusal"))
        return result
