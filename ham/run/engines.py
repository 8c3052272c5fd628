"""Where a sharded index build runs its shards (``engine=local|ray|slurm``): an existing
distributed engine, never a scheduler of ham's own. Each engine has one method,

    engine.map(fn, tasks) -> list      # fn(task) for every task, results in task order

and ``ham.index`` takes the engine object (``ham.run.build.configured_engine``). A task that
raises does not stop the others: every task runs, and when any failed ``map`` raises
``ShardsFailed`` naming each failed shard (its number and error) and carrying the results of the
others. The shards are content-addressed in the cache, so a rerun reuses every shard that was
built and redoes only the failed or lost ones.

    local   an in-process loop (the default)
    ray     Ray Data: an actor pool (``map_batches`` with a callable class, one task per batch),
            so each actor loads the encoder once and keeps it for every shard it builds
    slurm   a Slurm job array through submitit (``executor.map_array``), one job per shard

The engine never enters the run id: it decides where a shard is computed, not what it holds
(``engine.*`` is excluded in ``ham.conf.exclude``; each setting is ``NotResult`` as well). Ray and
submitit are imported only when their engine runs (``pip install 'ham[ray]'`` for Ray).
"""
from __future__ import annotations

import logging
import pickle
import traceback
from dataclasses import dataclass
from typing import Annotated, Any, Callable, List, Optional, Sequence

from ham.settings import Doc, NotResult, OneOf, Range

log = logging.getLogger("ham.run.engines")
WHERE = NotResult("where a shard is computed, not what it holds: shards are content-addressed")


@dataclass(frozen=True)
class ShardFailure:
    """One shard whose task raised (or whose job was lost)."""

    shard: int
    error: str          # the exception's type and message, or the job's end state
    detail: str = ""    # the traceback, or where the job's log is


class ShardsFailed(RuntimeError):
    """Some shards failed; ``results`` holds every task's outcome in task order (a result, or the
    ``ShardFailure`` in its place)."""

    def __init__(self, results: list, engine: str) -> None:
        self.results = results
        self.failures = [r for r in results if isinstance(r, ShardFailure)]
        self.engine = engine
        named = "; ".join(f"shard {f.shard}: {f.error}" for f in self.failures[:5])
        more = f"; and {len(self.failures) - 5} more" if len(self.failures) > 5 else ""
        super().__init__(f"engine={engine}: {len(self.failures)} of {len(results)} shards failed ({named}{more}); "
                         "the others are kept in the cache, so a rerun redoes only these")


def shard_of(task, position: int) -> int:
    """The shard number a task carries (``ShardTask.shard``), else its position."""
    shard = getattr(task, "shard", None)
    return int(shard) if shard is not None else position


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".strip()


def _finish(results: list, engine: str) -> list:
    if any(isinstance(r, ShardFailure) for r in results):
        raise ShardsFailed(results, engine)
    return results


def shard_statuses(results: Sequence) -> list[dict]:
    """One line per shard for the build's info: built, reused (its cache entry was there) or
    failed (with the error). A result is ``run_shard``'s dict or a ``ShardFailure``."""
    out = []
    for position, r in enumerate(results):
        if isinstance(r, ShardFailure):
            out.append({"shard": r.shard, "status": "failed", "error": r.error})
        elif isinstance(r, dict):
            out.append({"shard": r.get("shard", position), "status": "reused" if r.get("reused") else "built",
                        **{k: r[k] for k in ("rows", "key") if k in r}})
        else:
            out.append({"shard": position, "status": "built"})
    return out


class LocalEngine:
    """Every shard in this process, one after another (the default)."""

    name = "local"

    def __init__(self) -> None:
        pass

    def map(self, fn: Callable, tasks: Sequence) -> list:
        results: list = []
        for position, task in enumerate(tasks):
            try:
                results.append(fn(task))
            except Exception as exc:   # reported with its shard; the other shards still run
                log.error("shard %d failed: %s", shard_of(task, position), _error(exc))
                results.append(ShardFailure(shard_of(task, position), _error(exc), traceback.format_exc()))
        return _finish(results, self.name)


class _ShardActor:
    """A Ray Data actor: built once per actor (so whatever ``fn`` loads once per process, the
    encoder, stays loaded), then called with batches of one pickled task each."""

    def __init__(self, fn: Callable) -> None:
        self.fn = fn

    def __call__(self, batch: dict) -> dict:
        import numpy as np
        from ray import cloudpickle

        out: dict[str, list] = {"position": [], "outcome": []}
        for position, blob in zip(batch["position"], batch["task"]):
            task = pickle.loads(blob)
            try:
                outcome = self.fn(task)
            except Exception as exc:
                outcome = ShardFailure(shard_of(task, int(position)), _error(exc), traceback.format_exc())
            out["position"].append(int(position))
            out["outcome"].append(cloudpickle.dumps(outcome))
        return {"position": np.array(out["position"], dtype=np.int64),
                "outcome": np.array(out["outcome"], dtype=object)}


class RayEngine:
    """Shards on a Ray cluster through Ray Data: ``from_items(tasks).map_batches(<actor class>,
    batch_size=1, concurrency=N, num_cpus=..., num_gpus=...)``. Ray must be installed
    (``pip install 'ham[ray]'``) on the driver and every node, with ham beside it."""

    name = "ray"

    def __init__(self,
                 address: Annotated[Optional[str], WHERE, Doc(
                     "the Ray cluster: null starts one on this machine for the build, `auto` joins the one "
                     "`ray start` runs here, `ray://HEAD:10001` a remote one")] = None,
                 concurrency: Annotated[int, Range(1), WHERE, Doc(
                     "actors in the pool; each loads the encoder once and builds shard after shard")] = 2,
                 num_cpus: Annotated[float, Range(0), WHERE, Doc("CPUs each actor reserves")] = 1.0,
                 num_gpus: Annotated[float, Range(0), WHERE, Doc(
                     "GPUs each actor reserves (encoding on GPUs: 1, or 0.5 to put two actors on one)")] = 0.0,
                 object_store_mb: Annotated[Optional[int], Range(64), WHERE, Doc(
                     "object store size of a cluster started for the build (address=null); null: Ray's default")] = None,
                 ) -> None:
        self.address, self.concurrency = address, int(concurrency)
        self.num_cpus, self.num_gpus = float(num_cpus), float(num_gpus)
        self.object_store_mb = object_store_mb

    def map(self, fn: Callable, tasks: Sequence) -> list:
        if not tasks:
            return []
        try:
            import ray
            from ray import cloudpickle
        except ImportError as exc:
            raise ImportError("engine=ray needs Ray Data: pip install 'ham[ray]' (ray[data])") from exc
        started = not ray.is_initialized()
        if started:
            ray.init(address=self.address, include_dashboard=False, log_to_driver=False,
                     object_store_memory=self.object_store_mb * 2**20 if self.object_store_mb and self.address is None
                     else None)
        try:
            items = [{"position": i, "task": cloudpickle.dumps(task)}   # tasks of any importable or local type
                      for i, task in enumerate(tasks)]
            dataset = ray.data.from_items(items, override_num_blocks=len(items))
            # one shard in flight per actor: an idle actor takes the next shard rather than one
            # actor queueing several while another waits
            pool = ray.data.ActorPoolStrategy(size=min(self.concurrency, len(items)), max_tasks_in_flight_per_actor=1)
            rows = dataset.map_batches(_ShardActor, fn_constructor_args=(fn,), batch_size=1, compute=pool,
                                       num_cpus=self.num_cpus, num_gpus=self.num_gpus or None).take_all()
        finally:
            if started:
                ray.shutdown()
        by_position = {int(r["position"]): pickle.loads(r["outcome"]) for r in rows}
        lost = [i for i in range(len(tasks)) if i not in by_position]
        results = [by_position[i] if i in by_position else ShardFailure(shard_of(tasks[i], i), "lost: Ray returned no result")
                   for i in range(len(tasks))]
        if lost:
            log.error("engine=ray returned no result for shards %s", [shard_of(tasks[i], i) for i in lost])
        return _finish(results, self.name)


class SlurmEngine:
    """Shards as a Slurm job array through submitit (``executor.map_array``): one job per shard,
    at most ``array_parallelism`` running at once; this process waits for them. Each job reads
    and writes the shared cache root, so it must be on a file system every node sees."""

    name = "slurm"

    def __init__(self,
                 folder: Annotated[str, WHERE, Doc(
                     "submitit's folder for the jobs' pickles and logs (`%j`: the job id)")] = "outputs/submitit/index/%j",
                 partition: Annotated[Optional[str], WHERE, Doc("the Slurm partition; null: the default one")] = None,
                 account: Annotated[Optional[str], WHERE, Doc("the Slurm account to charge")] = None,
                 timeout_min: Annotated[int, Range(1), WHERE, Doc("each shard job's time limit, minutes")] = 60,
                 cpus_per_task: Annotated[int, Range(1), WHERE, Doc("CPUs per shard job")] = 2,
                 gpus_per_node: Annotated[int, Range(0), WHERE, Doc("GPUs per shard job")] = 0,
                 mem_gb: Annotated[float, Range(0), WHERE, Doc("memory per shard job, GB")] = 8.0,
                 array_parallelism: Annotated[int, Range(1), WHERE, Doc("shard jobs running at once")] = 64,
                 job_name: Annotated[str, WHERE, Doc("the jobs' name in squeue")] = "ham-index",
                 setup: Annotated[List[str], WHERE, Doc(
                     "shell lines each job runs first (module load ..., source .venv/bin/activate)")] = (),
                 cluster: Annotated[str, OneOf("slurm", "local"), WHERE, Doc(
                     "submitit's executor: slurm, or local (a process per shard on this machine, no Slurm) to "
                     "try a build")] = "slurm",
                 ) -> None:
        self.folder, self.partition, self.account = folder, partition, account
        self.timeout_min, self.cpus_per_task, self.gpus_per_node = int(timeout_min), int(cpus_per_task), int(gpus_per_node)
        self.mem_gb, self.array_parallelism, self.job_name = float(mem_gb), int(array_parallelism), job_name
        self.setup, self.cluster = list(setup or []), cluster

    def executor(self):
        import submitit

        executor = submitit.AutoExecutor(folder=self.folder, cluster=self.cluster)
        params: dict[str, Any] = {"name": self.job_name, "timeout_min": self.timeout_min,
                                  "cpus_per_task": self.cpus_per_task, "mem_gb": self.mem_gb,
                                  "slurm_array_parallelism": self.array_parallelism}
        if self.gpus_per_node:
            params["gpus_per_node"] = self.gpus_per_node
        if self.partition:
            params["slurm_partition"] = self.partition
        if self.account:
            params["slurm_account"] = self.account
        if self.setup:
            params["slurm_setup"] = self.setup
        executor.update_parameters(**params)
        return executor

    def map(self, fn: Callable, tasks: Sequence) -> list:
        if not tasks:
            return []
        jobs = self.executor().map_array(fn, list(tasks))
        log.info("engine=slurm: %d shard jobs submitted (array %s)", len(jobs), jobs[0].job_id.split("_")[0])
        results: list = []
        for position, (job, task) in enumerate(zip(jobs, tasks)):
            try:
                results.append(job.result())
            except Exception as exc:   # the job raised (FailedJobError) or ended unfinished (UncompletedJobError)
                shard = shard_of(task, position)
                results.append(ShardFailure(shard, f"job {job.job_id}: {_job_error(exc)}", str(exc)))
                log.error("shard %d failed: %s (logs: %s)", shard, results[-1].error, job.paths.stderr)
        return _finish(results, self.name)


def _job_error(exc: BaseException) -> str:
    """The line that says why a submitit job failed: the last line of the traceback it carries
    (between submitit's dashed rules), else its first line."""
    text = str(exc)
    parts = [p for p in text.split("----------------------") if p.strip()]
    if isinstance(exc, Exception) and type(exc).__name__ == "FailedJobError" and len(parts) >= 2:
        lines = [line.strip() for line in parts[1].strip().splitlines() if line.strip()]
        if lines:
            return lines[-1]
    first = text.strip().splitlines()
    return f"{type(exc).__name__}: {first[0] if first else ''}".strip()


class Recording:
    """An engine that keeps every ``map`` call's per-shard statuses (``shard_statuses``), failed
    calls included, for ``ham-index``'s info: one entry per sharded build (each modality's)."""

    def __init__(self, engine) -> None:
        self.engine, self.builds = engine, []
        self.name = getattr(engine, "name", type(engine).__name__)

    def map(self, fn: Callable, tasks: Sequence) -> list:
        try:
            results = self.engine.map(fn, tasks)
        except ShardsFailed as exc:
            self.builds.append(shard_statuses(exc.results))
            raise
        self.builds.append(shard_statuses(results))
        return results

    def info(self) -> dict:
        counts = {s: sum(x["status"] == s for b in self.builds for x in b) for s in ("built", "reused", "failed")}
        return {"name": self.name, **counts, "builds": [{"shards": b} for b in self.builds]}
