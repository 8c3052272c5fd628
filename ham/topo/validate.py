"""Counterfactual validation (TopoGraphRAG-Bench 3.2): a candidate is kept only when its intended
topology, modality and evidence are necessary. Every check that needs a model asks one question of
the sufficiency prompt (``sufficiency_v1``): given only this context, can one arrive at the
reference answer? (``<answerable>`` 0 or 1). Checks, in the order they run, each named by the
reason it rejects with:

    unit_alone          single-hop and every hop: the QA's own unit must answer it, else
                        ``unit_alone_insufficient`` (an atomic QA that fails is no hop either)
    bridge_unnamed      bridge chains: the composed question must not name the bridge entity
                        (normalised word match, or its surface form, case-insensitively), else
                        ``names_bridge_entity`` (no model call)
    hop1_alone          bridge chains: the first hop's unit alone must not answer the composed
                        question, else ``answerable_from_hop1``
    hop2_alone          the same for the second hop's unit: ``answerable_from_hop2``
    all_points          synthesis: all the points' units together must reach the conclusion, else
                        ``all_points_insufficient``
    leave_one_out       synthesis: for each point, its units without it; a point is required when
                        the rest no longer reach the conclusion. Fewer than ``min_required`` (3)
                        required points: ``too_few_required_points``. (A conclusion one unit
                        supports leaves at most one point required, so it cannot pass.)
    text_top_k          synthesis: the top ``top_k`` (20) text units (tables and figures left out)
                        of the run's hybrid retrieval for the question must not reach the
                        conclusion, else ``text_retrieval_reaches_conclusion``
    text_only           every cross-modal candidate (a figure or table among its evidence): its
                        units as a text-only system sees them (a figure's or table's caption and the
                        text around it, never its description, OCR or rows; ``ham.topo.views``) must
                        not answer it, else ``answerable_from_text_only``

A check whose call fails (the backend failed, or the reply broke the prompt's rules) rejects the
candidate with ``check_failed`` and the check's name: a question is never kept unchecked. A
rejected candidate is not checked further. Every check run is recorded on the candidate (its
verdict, the units of its context and the view), so the report shows why each was kept or not.
"""
from __future__ import annotations

from ham.topo.calls import ModelCalls
from ham.topo.compose import Candidate
from ham.index.entities import mentions
from ham.topo.prompt import TaskPrompt
from ham.topo.views import context

REASONS = {"unit_alone": "unit_alone_insufficient", "bridge_unnamed": "names_bridge_entity",
           "hop1_alone": "answerable_from_hop1", "hop2_alone": "answerable_from_hop2",
           "all_points": "all_points_insufficient", "leave_one_out": "too_few_required_points",
           "text_top_k": "text_retrieval_reaches_conclusion", "text_only": "answerable_from_text_only"}


class Validator:
    def __init__(self, calls: ModelCalls, prompt: TaskPrompt, units: dict, descriptions=None, retrieve_text=None,
                 top_k: int = 20, min_required: int = 3) -> None:
        self.calls, self.prompt, self.units, self.descriptions = calls, prompt, units, descriptions
        self.retrieve_text, self.top_k, self.min_required = retrieve_text, top_k, min_required

    # ------------------------------------------------------------------ the one model check

    def _ask(self, jobs: list[tuple[Candidate, str, list[str], bool]]) -> list[int | None]:
        """Sufficiency verdicts for (candidate, check, context units, text-only view) jobs; each is
        recorded on its candidate; None where the call failed."""
        items = [{"context": context([self.units[u] for u in us], self.descriptions, text_only_view=view),
                  "question": c.question, "answer": c.answer} for c, _, us, view in jobs]
        replies = self.calls.ask(self.prompt, items, what=f"check:{jobs[0][1]}") if jobs else []
        verdicts = []
        for (c, check, us, view), reply in zip(jobs, replies):
            verdict = reply.fields["answerable"] if reply.ok else None
            record = {"check": check, "answerable": verdict, "units": list(us), "view": "text_only" if view else "full"}
            if not reply.ok:
                record["error"] = reply.error
            c.checks.append(record)
            verdicts.append(verdict)
        return verdicts

    def _run(self, check: str, jobs, reject_when: int) -> None:
        """Ask ``jobs`` and reject a candidate whose verdict is ``reject_when`` (or missing)."""
        for (c, *_), v in zip(jobs, self._ask(jobs)):
            if v is None:
                c.reject(check, "check_failed")
            elif v == reject_when:
                c.reject(check, REASONS[check])

    @staticmethod
    def _alive(cands: list[Candidate]) -> list[Candidate]:
        return [c for c in cands if c.rejected is None]

    # ------------------------------------------------------------------ checks

    def unit_alone(self, cands: list[Candidate]) -> None:
        self._run("unit_alone", [(c, "unit_alone", c.units, False) for c in self._alive(cands)], reject_when=0)

    def text_only(self, cands: list[Candidate]) -> None:
        self._run("text_only", [(c, "text_only", c.units, True) for c in self._alive(cands) if c.cross_modal],
                  reject_when=1)

    def bridges(self, cands: list[Candidate]) -> None:
        for c in self._alive(cands):
            named = mentions(c.question, c.bridge or "") or \
                bool(c.bridge_surface) and c.bridge_surface.lower() in c.question.lower()
            c.checks.append({"check": "bridge_unnamed", "named": named})
            if named:
                c.reject("bridge_unnamed", REASONS["bridge_unnamed"])
        self._run("hop1_alone", [(c, "hop1_alone", c.units[:1], False) for c in self._alive(cands)], reject_when=1)
        self._run("hop2_alone", [(c, "hop2_alone", c.units[1:2], False) for c in self._alive(cands)], reject_when=1)
        self.text_only(cands)

    def synthesis(self, cands: list[Candidate]) -> None:
        self._run("all_points", [(c, "all_points", c.units, False) for c in self._alive(cands)], reject_when=0)
        alive = self._alive(cands)
        jobs = [(c, "leave_one_out", [u for j, u in enumerate(c.units) if j != i], False)
                for c in alive for i in range(len(c.units))]
        verdicts = iter(self._ask(jobs))
        for c in alive:
            got = [next(verdicts) for _ in c.units]
            if any(v is None for v in got):
                c.reject("leave_one_out", "check_failed")
                continue
            c.required = [i for i, v in enumerate(got) if v == 0]
            if len(c.required) < self.min_required:
                c.reject("leave_one_out", REASONS["leave_one_out"])
        # the required points alone must still reach the conclusion: two interchangeable points are
        # each not required (either can go), yet the conclusion needs one of them; then the gold
        # keeps every point, or a system retrieving exactly the gold could not answer
        partial = [c for c in self._alive(cands) if c.required is not None and len(c.required) < len(c.units)]
        jobs = [(c, "required_sufficient", [c.units[i] for i in c.required], False) for c in partial]
        for (c, *_), v in zip(jobs, self._ask(jobs)):
            if v is None:
                c.reject("required_sufficient", "check_failed")
            elif v == 0:
                c.required = list(range(len(c.units)))
        if self.retrieve_text is not None:
            alive = self._alive(cands)
            self._run("text_top_k", [(c, "text_top_k", self.retrieve_text(c.question, self.top_k), False)
                                     for c in alive], reject_when=1)
        self.text_only(cands)
