"""Structured-config schemas: one dataclass per kind of option, registered in Hydra's ConfigStore
under ``schema/<group>/<name>`` and named first in each option file's defaults list
(``- /schema/generator/openai@_here_``). Hydra then checks every key and type at compose time:
a misspelt key or ``retrieval.k_t=abc`` fails with Hydra's message naming the key. Ranges that
types cannot say (``retrieval.k_t=-1``) are field metadata (``min``/``max``/``choices``), checked by
``ham.conf.check`` right after composition, before anything runs.

An implementation is chosen by ``_target_`` in every group (``null`` = none, for ``describer``,
``judge`` and ``logger``). ``tests/config`` checks that each schema matches the signature of the
class its options instantiate, so a schema cannot drift from the code.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from omegaconf import MISSING


def _min(default, low, **extra):
    return field(default=default, metadata={"min": low, **extra})


def _choices(default, *choices):
    return field(default=default, metadata={"choices": choices})


# ---- dataset -------------------------------------------------------------------------------

@dataclass
class QuestionReader:
    _target_: str = "ham.datasets.questions.JsonlReader"


@dataclass
class Dataset:
    name: str = MISSING
    path: str = MISSING                      # the corpus folder (identity: its content hash)
    questions: Optional[str] = None          # the questions file (identity: its content hash)
    reader: QuestionReader = field(default_factory=QuestionReader)
    descriptions: Optional[str] = None       # JSONL of context-aware image descriptions
    subset: Optional[str] = None             # MRAMG/HAM-Bench subset
    sample: Optional[int] = _min(None, 1)    # a fixed random subset of this many questions
    sample_seed: Optional[int] = None        # the subset's seed; None: the run's ``seed``


# ---- units ---------------------------------------------------------------------------------

@dataclass
class BlockUnits:
    _target_: str = "ham.granularity.Blocks"
    captions: str = _choices("image", "image", "both")


@dataclass
class MergedUnits:
    _target_: str = "ham.granularity.Merged"
    min_chars: int = _min(300, 1)
    max_chars: int = _min(1200, 1)
    captions: str = _choices("image", "image", "both")
    steps: str = _choices("merge", "merge", "keep")


@dataclass
class SectionUnits:
    _target_: str = "ham.granularity.Sections"
    max_chars: int = _min(2000, 1)
    captions: str = _choices("image", "image", "both")
    steps: str = _choices("merge", "merge", "keep")


# ---- represent and enrich ------------------------------------------------------------------

@dataclass
class Representation:
    _target_: str = MISSING


@dataclass
class ContextualTextRepresentation:
    _target_: str = "ham.represent.templates.ContextualText"
    sparse: str = _choices("full", "full", "path_content")


@dataclass
class LeadSummariser:
    _target_: str = "ham.enrich.summaries.LeadSummariser"
    sentences: int = _min(2, 1)
    max_words: int = _min(40, 1)


@dataclass
class ChatSummariser:
    _target_: str = "ham.enrich.summaries.ChatSummariser"
    model: str = MISSING
    base_url: Optional[str] = None
    base_url_env: str = "OPENAI_BASE_URL"
    api_key_env: str = "OPENAI_API_KEY"
    max_words: int = _min(40, 1)
    concurrency: int = _min(8, 1)
    batch_size: int = _min(64, 1)
    max_tokens: int = _min(200, 1)
    temperature: float = _min(0.0, 0.0)
    timeout: float = _min(120.0, 0.0)
    max_retries: int = _min(5, 0)
    seed: Optional[int] = None               # the run's seed (${seed}): sent while sampling


@dataclass
class HFSummariser:
    _target_: str = "ham.enrich.summaries.HFSummariser"
    model: str = MISSING
    max_words: int = _min(40, 1)
    max_new_tokens: int = _min(96, 1)
    batch_size: int = _min(8, 1)
    device: Optional[str] = None
    max_prompt_tokens: int = _min(2048, 1)
    cache_root: str = "outputs/cache"


@dataclass
class DescriptionFile:
    _target_: str = "ham.enrich.descriptions.DescriptionFile"
    path: Optional[str] = None


@dataclass
class ChatDescriber:
    _target_: str = "ham.enrich.descriptions.ChatDescriber"
    model: str = MISSING
    base_url: Optional[str] = None
    base_url_env: str = "OPENAI_BASE_URL"
    api_key_env: str = "OPENAI_API_KEY"
    max_words: int = _min(80, 1)
    concurrency: int = _min(8, 1)
    batch_size: int = _min(32, 1)
    max_tokens: int = _min(300, 1)
    max_side: int = _min(1536, 16)
    temperature: float = _min(0.0, 0.0)
    timeout: float = _min(120.0, 0.0)
    max_retries: int = _min(5, 0)
    seed: Optional[int] = None               # the run's seed (${seed}): sent while sampling


@dataclass
class HFDescriber:
    _target_: str = "ham.enrich.descriptions.HFDescriber"
    model: str = MISSING
    max_words: int = _min(80, 1)
    max_new_tokens: int = _min(160, 1)
    batch_size: int = _min(4, 1)
    device: Optional[str] = None
    max_side: int = _min(896, 16)
    max_prompt_tokens: int = _min(8192, 1)


@dataclass
class Nothing:
    """``describer=none``, ``judge=none``, ``logger=none``, ``system=none``."""

    _target_: Optional[str] = None


# ---- index ---------------------------------------------------------------------------------

@dataclass
class SentenceTransformerEncoder:
    _target_: str = "ham.index.encoders.SentenceTransformerEncoder"
    model: str = "minilm"
    batch_size: int = _min(64, 1)
    device: Optional[str] = None
    max_seq_length: Optional[int] = _min(None, 1)
    show_progress: bool = False
    query_threads: Optional[int] = _min(1, 1)   # torch threads for one query's encode (None: all)
    long_text: str = _choices("windows", "truncate", "windows")   # ham.index.windows


@dataclass
class BGEM3Encoder:
    _target_: str = "ham.index.encoders.BGEM3Encoder"
    model: str = "BAAI/bge-m3"
    batch_size: int = _min(32, 1)
    max_length: int = _min(1024, 1)
    query_max_length: int = _min(512, 1)
    device: Optional[str] = None
    use_fp16: Optional[bool] = None
    show_progress: bool = False
    query_threads: Optional[int] = _min(1, 1)
    long_text: str = _choices("windows", "truncate", "windows")


@dataclass
class FlatIndex:
    _target_: str = "ham.index.dense.FlatSpec"
    use_gpu: str = _choices("auto", "auto", "true", "false", "True", "False")


@dataclass
class HNSWIndex:
    _target_: str = "ham.index.dense.HNSWSpec"
    m: int = _min(32, 2)
    ef_construction: int = _min(200, 1)
    ef_search: int = _min(128, 1)
    use_gpu: str = _choices("auto", "auto", "true", "false", "True", "False")


@dataclass
class IVFPQIndex:
    _target_: str = "ham.index.dense.IVFPQSpec"
    nlist: int = _min(1024, 1)
    m: int = _min(16, 1)
    nbits: int = _min(8, 1)
    nprobe: int = _min(32, 1)
    train_size: int = _min(100_000, 1)
    min_vectors: int = _min(10_000, 0)
    use_gpu: str = _choices("auto", "auto", "true", "false", "True", "False")
    seed: int = 0                            # training sample and k-means (the run's ``seed``)


# ---- retrieve ------------------------------------------------------------------------------

@dataclass
class Fusion:
    _target_: str = "ham.index.hybrid.HybridFusion"
    dense_weight: Optional[float] = field(default=0.7, metadata={"min": 0.0, "max": 1.0})


@dataclass
class SectionRanker:
    _target_: str = "ham.retrieve.structural.SectionRanker"
    per_section: int = _min(15, 1)
    weights: List[float] = field(default_factory=lambda: [1.0, 0.5])
    expand: int = _min(2, 0)
    section_weight: float = field(default=0.3, metadata={"min": 0.0, "max": 1.0})
    min_ratio: float = field(default=0.7, metadata={"min": 0.0, "max": 1.0})
    family_ratio: float = _min(0.5, 0.0)
    order: str = _choices("score", "score", "source")


@dataclass
class SectionCapDiversity:
    _target_: str = "ham.retrieve.diversity.SectionCap"
    per_section: int = _min(4, 1)
    parents: int = _min(2, 0)
    parents_from: int = _min(5, 1)


@dataclass
class TreeAssembly:
    """How a budgeted text context is assembled (``ham.retrieve.budget``)."""

    _target_: str = "ham.retrieve.budget.TreeAssembly"
    relevant: float = field(default=0.5, metadata={"min": 0.0, "max": 1.0})      # scaled score of a relevant unit
    merge_ratio: float = field(default=0.5, metadata={"min": 0.0, "max": 1.0})   # share of a section's text -> whole section
    parent_chars: int = _min(600, 0)          # a parent's own text up to this length follows a child
    parents_from: int = _min(3, 0)            # the first N section passages bring their parent's
    parent_depth: int = _min(2, 0)            # ... and enclosing sections up to this many levels up
    image_weight: float = field(default=0.3, metadata={"min": 0.0, "max": 1.0})  # context share of an image's score
    last: str = _choices("cut", "cut", "skip")   # a passage that no longer fits: cut to the room left, or skip it


@dataclass
class Retrieval:
    _target_: str = "ham.retrieve.retriever.Retriever"
    k_t: int = _min(15, 0)
    k_v: int = _min(10, 0)
    pool: int = _min(100, 1)
    fusion: Fusion = field(default_factory=Fusion)
    ranker: Optional[SectionRanker] = None
    diversity: Optional[Any] = None          # ham.retrieve.diversity: SectionCap, MMR, or none
    k_tab: Optional[int] = _min(None, 0)     # None: tables share k_t with text; N: N tables besides k_t
    budget: Optional[int] = _min(None, 1)    # None: k_t units; N: text assembled along the tree within N
    budget_unit: str = _choices("chars", "chars", "tokens")   # tokens: the generator's tokenizer
    assembly: TreeAssembly = field(default_factory=TreeAssembly)


@dataclass
class CrossEncoderReranker:
    _target_: str = "ham.retrieve.rerank.CrossEncoderReranker"
    model: str = MISSING
    top_n: int = _min(50, 1)
    batch_size: int = _min(32, 1)
    max_length: int = _min(512, 1)
    device: Optional[str] = None
    cache_root: Optional[str] = None


@dataclass
class BGEReranker:
    _target_: str = "ham.retrieve.rerank.BGEReranker"
    model: str = "BAAI/bge-reranker-v2-m3"
    top_n: int = _min(50, 1)
    batch_size: int = _min(32, 1)
    max_length: int = _min(512, 1)
    device: Optional[str] = None
    use_fp16: Optional[bool] = None
    cache_root: Optional[str] = None


@dataclass
class GraphSettings:
    """``retrieval=graph`` (``ham.retrieve.graph``): what is followed from the hybrid seeds."""

    follow: List[str] = field(default_factory=lambda: ["tree", "captions", "entities"])
    seeds: int = _min(5, 1)                  # top units of each modality's ranking expanded
    hops: int = _min(1, 1)
    fan_out: int = _min(3, 1)                # neighbours reached per source unit and edge kind
    weight: float = field(default=0.5, metadata={"min": 0.0, "max": 1.0})   # share of the source's score
    max_words: int = _min(4, 1)              # entity extractor (RAKE): words per phrase
    per_unit: int = _min(20, 1)              # phrases kept per unit
    min_chars: int = _min(3, 1)              # shortest one-word entity
    min_units: int = _min(2, 2)              # an anchor occurs in at least this many units
    max_share: float = field(default=0.1, metadata={"min": 0.0, "max": 1.0})   # and at most this share
    cache_root: Optional[str] = None         # where the entity links are cached (the run's cache root)


@dataclass
class GraphRetrieval(Retrieval):
    _target_: str = "ham.retrieve.graph.GraphRetriever"
    graph: GraphSettings = field(default_factory=GraphSettings)


# ---- methods -------------------------------------------------------------------------------

@dataclass
class HamMethod:
    _target_: str = "ham.methods.ham.HamAssembler"
    template: str = "ham_v2"


@dataclass
class LlmBasedMethod:
    _target_: str = "ham.methods.llm_based.LlmBasedMethod"
    template: str = "llm_based_v1"


@dataclass
class MllmBasedMethod:
    _target_: str = "ham.methods.mllm_based.MllmBasedMethod"
    template: str = "mllm_based_v1"
    max_images: int = _min(5, 1)
    clip_model: Optional[str] = None
    clip_device: Optional[str] = None
    clip_batch_size: int = _min(16, 1)


@dataclass
class RuleBasedMethod:
    _target_: str = "ham.methods.rule_based.RuleBasedMethod"
    template: str = "rule_based_v1"
    max_images: int = _min(3, 0)
    min_score: float = field(default=0.3, metadata={"min": 0.0, "max": 1.0})
    semantic_weight: float = field(default=0.5, metadata={"min": 0.0, "max": 1.0})
    semantic_model: Optional[str] = None


# ---- generate ------------------------------------------------------------------------------

@dataclass
class ExtractiveGenerator:
    _target_: str = "ham.generate.extractive.ExtractiveGenerator"
    max_sentences: int = _min(5, 1)
    per_unit: int = _min(3, 1)
    max_images: int = _min(3, 0)
    rank_weight: float = _min(0.5, 0.0)
    pricing: Optional[str] = None


@dataclass
class OpenAIGenerator:
    _target_: str = "ham.generate.openai_chat.OpenAIGenerator"
    model: str = MISSING
    base_url: Optional[str] = None
    base_url_env: str = "OPENAI_BASE_URL"
    api_key_env: str = "OPENAI_API_KEY"
    temperature: Optional[float] = _min(0.2, 0.0)
    max_tokens: int = _min(1024, 1)
    max_tokens_field: str = _choices("max_tokens", "max_tokens", "max_completion_tokens")
    stream: bool = False
    concurrency: int = _min(16, 1)
    max_retries: int = _min(5, 0)
    backoff_base: float = _min(0.5, 0.0)
    backoff_max: float = _min(60.0, 0.0)
    timeout: float = _min(300.0, 0.0)
    request_budget: Optional[int] = _min(None, 0)
    truncation_is_failure: bool = True
    extra_body: Dict[str, Any] = field(default_factory=dict)
    http_backend: str = _choices("aiohttp", "aiohttp", "httpx")
    pricing: Optional[str] = None
    require_api_key: bool = False
    seed: Optional[int] = None               # the run's seed (${seed}): sent while sampling


@dataclass
class HFGenerator:
    _target_: str = "ham.generate.hf.HFGenerator"
    model: str = "smollm2"
    max_new_tokens: int = _min(1024, 1)
    temperature: float = _min(0.2, 0.0)
    max_prompt_tokens: int = _min(32000, 1)
    batch_size: int = _min(8, 1)
    truncation_is_failure: bool = True
    device: Optional[str] = None
    dtype: Optional[str] = _choices(None, None, "float32", "float16", "bfloat16")
    cache_root: str = "outputs/cache"
    pricing: Optional[str] = None
    seed: Optional[int] = None               # the run's seed (${seed}): sent while sampling


# ---- evaluate ------------------------------------------------------------------------------

@dataclass
class BertScore:
    model: str = "minilm"
    num_layers: Optional[int] = _min(6, 1)
    batch_size: int = _min(32, 1)
    device: Optional[str] = None
    rescale_with_baseline: bool = False
    baseline_path: Optional[str] = None


@dataclass
class Metrics:
    names: List[str] = MISSING               # checked against the metric registry at start
    img_cbs_window: int = _min(30, 1)
    bertscore: BertScore = field(default_factory=BertScore)


@dataclass
class ChatClient:
    _target_: str = "ham.backends.chat.ChatClient"
    model: str = MISSING
    base_url: Optional[str] = None
    base_url_env: str = "OPENAI_BASE_URL"
    api_key_env: str = "OPENAI_API_KEY"
    temperature: Optional[float] = _min(0.0, 0.0)
    max_tokens: int = _min(1024, 1)
    timeout: float = _min(120.0, 0.0)
    max_retries: int = _min(5, 0)
    stream: bool = False
    max_concurrency: int = _min(16, 1)
    request_budget: Optional[int] = _min(None, 0)
    seed: Optional[int] = None               # the run's seed (${seed}): sent while sampling


@dataclass
class HFChat:
    _target_: str = "ham.metrics.judge.HFChat"
    model: str = "smollm2"
    max_new_tokens: int = _min(512, 1)
    max_prompt_tokens: int = _min(6000, 1)
    device: Optional[str] = None
    cache_root: str = "outputs/cache"


@dataclass
class OpenAIJudge:
    _target_: str = "ham.metrics.judge.Judge"
    client: ChatClient = field(default_factory=ChatClient)
    prompts: Dict[str, str] = field(default_factory=dict)   # metric -> versioned prompt file


@dataclass
class HFJudge:
    _target_: str = "ham.metrics.judge.Judge"
    client: HFChat = field(default_factory=HFChat)
    prompts: Dict[str, str] = field(default_factory=dict)


@dataclass
class Cost:
    pricing: Optional[str] = None
    prices: Dict[str, Dict[str, float]] = field(default_factory=dict)


# ---- topology benchmark construction (ham-topo) ---------------------------------------------

@dataclass
class TopoEntities:
    extractor: str = _choices("rake", "rake", "llm")
    max_words: int = _min(4, 1)
    per_unit: int = _min(20, 1)
    min_chars: int = _min(3, 1)
    min_units: int = _min(2, 2)
    max_share: float = field(default=0.1, metadata={"min": 0.0, "max": 1.0})


@dataclass
class TopoBridges:
    max: int = _min(50, 0)
    per_entity: int = _min(3, 1)
    min_strength: int = field(default=1, metadata={"min": 0, "max": 2})


@dataclass
class TopoSynthesis:
    min_units: int = _min(5, 2)
    min_points: int = _min(3, 2)
    max_points: int = _min(6, 2)
    max: int = _min(20, 0)


@dataclass
class TopoValidate:
    top_k: int = _min(20, 1)
    min_required: int = _min(3, 1)


@dataclass
class TopoPrompts:
    atomic_qa: str = "atomic_qa_v1"
    bridge_compose: str = "bridge_compose_v1"
    synthesis: str = "synthesis_v1"
    sufficiency: str = "sufficiency_v1"
    entities: str = "entities_v1"


@dataclass
class TopoBuild:
    """``ham-topo`` (``ham.topo.build``); ``ham`` runs do not read it."""

    out: str = "${paths.output_root}/topo/${dataset.name}"
    units: Optional[int] = _min(None, 1)     # at most this many units get an atomic QA (chosen through anchors)
    unit_ids: List[str] = field(default_factory=list)
    seed: int = 0
    min_words: int = _min(12, 1)
    batch: int = _min(64, 1)                 # prompts handed to the generator at once
    entities: TopoEntities = field(default_factory=TopoEntities)
    bridges: TopoBridges = field(default_factory=TopoBridges)
    synthesis: TopoSynthesis = field(default_factory=TopoSynthesis)
    validate: TopoValidate = field(default_factory=TopoValidate)
    prompts: TopoPrompts = field(default_factory=TopoPrompts)


# ---- run -----------------------------------------------------------------------------------

@dataclass
class WandbLogger:
    _target_: str = "ham.run.tracking.WandbLogger"
    project: str = "ham"
    entity: Optional[str] = None
    mode: str = _choices("offline", "offline", "online", "disabled")


@dataclass
class Paths:
    output_root: str = "outputs"
    cache_root: str = "${paths.output_root}/cache"


@dataclass
class RunSettings:
    redo_failures: List[str] = field(default_factory=lambda: ["retryable"])   # ham.generate.base.redo_reasons
    reuse_cached_successes: bool = False   # rerun=true: stored replies for questions answered well before


@dataclass
class Root:
    dataset: Any = MISSING
    units: Any = MISSING
    text_repr: Any = MISSING
    image_repr: Any = MISSING
    summariser: Any = MISSING
    describer: Any = MISSING
    encoder: Any = MISSING
    index: Any = MISSING
    retrieval: Any = MISSING
    reranker: Any = MISSING
    method: Any = MISSING
    generator: Any = MISSING
    cost: Any = MISSING
    metrics: Any = MISSING
    judge: Any = MISSING
    system: Any = MISSING
    logger: Any = MISSING
    topo: Any = MISSING
    name: str = MISSING
    seed: int = 0
    limit: Optional[int] = _min(None, 1)
    progress: bool = True
    rerun: bool = False
    paths: Paths = field(default_factory=Paths)
    run: RunSettings = field(default_factory=RunSettings)


# group -> {schema name: dataclass}; the option files name them in their defaults lists
SCHEMAS: dict[str, dict[str, type]] = {
    "dataset": {"dataset": Dataset},
    "units": {"blocks": BlockUnits, "merged": MergedUnits, "sections": SectionUnits},
    "text_repr": {"representation": Representation, "ct": ContextualTextRepresentation},
    "image_repr": {"representation": Representation},
    "summariser": {"lead": LeadSummariser, "openai": ChatSummariser, "hf": HFSummariser},
    "describer": {"file": DescriptionFile, "openai": ChatDescriber, "hf": HFDescriber, "none": Nothing},
    "encoder": {"sentence_transformers": SentenceTransformerEncoder, "bge_m3": BGEM3Encoder},
    "index": {"flat": FlatIndex, "hnsw": HNSWIndex, "ivfpq": IVFPQIndex},
    "retrieval": {"retrieval": Retrieval, "graph": GraphRetrieval},
    "reranker": {"cross_encoder": CrossEncoderReranker, "bge": BGEReranker, "none": Nothing},
    "method": {"ham": HamMethod, "llm_based": LlmBasedMethod, "mllm_based": MllmBasedMethod,
               "rule_based": RuleBasedMethod},
    "generator": {"extractive": ExtractiveGenerator, "openai": OpenAIGenerator, "hf": HFGenerator},
    "cost": {"cost": Cost},
    "metrics": {"metrics": Metrics},
    "judge": {"openai": OpenAIJudge, "hf": HFJudge, "none": Nothing},
    "system": {"none": Nothing},
    "logger": {"wandb": WandbLogger, "none": Nothing},
    "topo": {"topo": TopoBuild},
}
