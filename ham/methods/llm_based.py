"""LLM-Based (MRAMG baseline, paper 5.1.1): text-only generation. The retrieved text is given flat
(contents in rank order, no headings); each retrieved image enters as a textual proxy, its caption
or alt text and the text around it in the source, under a placeholder ``<imgN>`` the model may
cite."""
from __future__ import annotations

from ham.methods.base import Template, Method, Prompt, flat_text_blocks, proxy_lines, slots_of
from ham.retrieve.retriever import Retrieved


class LlmBasedMethod(Method):
    name = "llm_based"

    def __init__(self, template: Template = "llm_based_v1", **context) -> None:
        super().__init__(template, **context)

    def __call__(self, question: str, retrieved: Retrieved) -> Prompt:
        image_blocks = "\n\n".join("\n".join([f"<img{i}>", *proxy_lines(h)])
                                   for i, h in enumerate(retrieved.images, 1))
        return self.render(question, retrieved, slots_of(retrieved.images),
                           text_blocks=flat_text_blocks(retrieved.text), image_blocks=image_blocks)
