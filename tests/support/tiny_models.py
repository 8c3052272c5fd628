"""Randomly initialised transformers models built from configs, saved as model folders, for tests
and benchmarks (nothing is downloaded): a byte-level BPE tokenizer with a chat template, a Llama
causal LM, a LLaVA vision-language model (CLIP vision tower, PIL image processor, no
torchvision), a CLIP dual encoder and a BGE-M3-shaped XLM-RoBERTa with its sparse and ColBERT heads.

``emits_text=True`` makes a generator's greedy output ordinary text for its whole length (no EOS;
special and whitespace tokens suppressed), for tests that need a non-empty answer from random weights."""
from __future__ import annotations

from pathlib import Path

SPECIALS = ["<pad>", "<unk>", "<|end|>", "<|user|>", "<|assistant|>", "<image>"]
# accepts plain string content and content-part lists ({"type": "image"} / {"type": "text"})
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for p in m['content'] %}"
    "{% if p['type'] == 'image' %}<image>{% else %}{{ p['text'] }}{% endif %}{% endfor %}{% endif %}"
    "<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}")
TRAINING_TEXT = ["Open the reconcile window and enter the closing balance from the bank statement.",
                 "Check the oil level every month; the sight glass shows the level.",
                 "Install the pump on a level concrete base with anchor bolts."]


def tiny_tokenizer(vocab_size: int = 320):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(TRAINING_TEXT * 4, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", unk_token="<unk>",
                                   eos_token="<|end|>", chat_template=CHAT_TEMPLATE)


def _llama_config(tokenizer, hidden: int = 32, layers: int = 2, heads: int = 4, max_positions: int = 1024):
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=2 * hidden,
                       num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=max(1, heads // 2),
                       max_position_embeddings=max_positions, pad_token_id=tokenizer.pad_token_id,
                       eos_token_id=tokenizer.eos_token_id, bos_token_id=None, tie_word_embeddings=True)


def _emit_text_only(model, tokenizer) -> None:
    """No EOS, and no token that decodes to nothing visible (specials, whitespace)."""
    model.generation_config.eos_token_id = None
    model.generation_config.suppress_tokens = [i for i in range(len(tokenizer))
                                               if not tokenizer.decode([i], skip_special_tokens=True).strip()]


def tiny_causal_lm(folder: Path, seed: int = 0, emits_text: bool = False, **sizes) -> Path:
    import torch
    from transformers import LlamaForCausalLM

    tokenizer = tiny_tokenizer()
    torch.manual_seed(seed)
    model = LlamaForCausalLM(_llama_config(tokenizer, **sizes))
    if emits_text:
        _emit_text_only(model, tokenizer)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def tiny_llava(folder: Path, seed: int = 0, emits_text: bool = False) -> Path:
    import torch
    from transformers import (CLIPImageProcessor, CLIPVisionConfig, LlavaConfig, LlavaForConditionalGeneration,
                              LlavaProcessor)

    tokenizer = tiny_tokenizer()
    image_processor = CLIPImageProcessor(size={"shortest_edge": 16}, crop_size={"height": 16, "width": 16})
    processor = LlavaProcessor(image_processor=image_processor, tokenizer=tokenizer, patch_size=8,
                               vision_feature_select_strategy="default", chat_template=CHAT_TEMPLATE,
                               image_token="<image>", num_additional_image_tokens=1)
    vision = CLIPVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                              image_size=16, patch_size=8, projection_dim=16)
    config = LlavaConfig(vision_config=vision, text_config=_llama_config(tokenizer),
                         image_token_index=tokenizer.convert_tokens_to_ids("<image>"),
                         vision_feature_select_strategy="default", vision_feature_layer=-1)
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(config)
    if emits_text:
        _emit_text_only(model, tokenizer)
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


def tiny_clip(folder: Path, seed: int = 0) -> Path:
    import torch
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel

    tokenizer = tiny_tokenizer()
    config = CLIPConfig(
        text_config={"vocab_size": len(tokenizer), "hidden_size": 16, "intermediate_size": 32,
                     "num_hidden_layers": 1, "num_attention_heads": 2, "max_position_embeddings": 64,
                     "pad_token_id": tokenizer.pad_token_id, "eos_token_id": tokenizer.eos_token_id},
        vision_config={"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
                       "num_attention_heads": 2, "image_size": 16, "patch_size": 8},
        projection_dim=8)
    torch.manual_seed(seed)
    CLIPModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    CLIPImageProcessor(size={"shortest_edge": 16}, crop_size={"height": 16, "width": 16}).save_pretrained(folder)
    return folder


def tiny_bge_m3(folder: Path, seed: int = 0, heads: bool = True) -> Path:
    """XLM-RoBERTa as BGE-M3 lays it out: ``<s>``=0, ``<pad>``=1, ``</s>``=2, plus
    ``sparse_linear.pt`` and ``colbert_linear.pt`` unless ``heads=False``."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast, XLMRobertaConfig, XLMRobertaModel

    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator([t.lower().rstrip(".") for t in TRAINING_TEXT] +
                            ["reconcile the checking account", "credit card payment", "enter a deposit into savings"],
                            trainers.WordLevelTrainer(special_tokens=["<s>", "<pad>", "</s>", "<unk>"]))
    tok.post_processor = processors.TemplateProcessing(single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
                                                       special_tokens=[("<s>", 0), ("</s>", 2)])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                        pad_token="<pad>", cls_token="<s>", sep_token="</s>")
    config = XLMRobertaConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                              intermediate_size=64, max_position_embeddings=130, pad_token_id=1)
    torch.manual_seed(seed)
    XLMRobertaModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    if heads:
        torch.save(torch.nn.Linear(32, 1).state_dict(), folder / "sparse_linear.pt")
        torch.save(torch.nn.Linear(32, 32).state_dict(), folder / "colbert_linear.pt")
    return folder


def tiny_cross_encoder(folder: Path, seed: int = 0) -> Path:
    """A BERT sequence classifier with one label, as sentence-transformers' CrossEncoder loads one:
    (query, passage) pairs in, one relevance score out."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    tokenizer = tiny_tokenizer()
    tokenizer.add_special_tokens({"cls_token": "<|user|>", "sep_token": "<|end|>"})
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=512, num_labels=1,
                        pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(seed)
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _bpe(specials: list[str], vocab_size: int = 300):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(TRAINING_TEXT * 4, trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=specials, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return tok


def tiny_colpali(folder: Path, seed: int = 0, embedding_dim: int = 8) -> Path:
    """ColPaliForRetrieval over a tiny PaliGemma (SigLIP tower 32 px, 16 patches; Gemma text model)
    with its ColPaliProcessor (SigLIP's PIL image processor, a Gemma tokenizer)."""
    import torch
    from transformers import (ColPaliConfig, ColPaliForRetrieval, ColPaliProcessor, GemmaConfig, GemmaTokenizerFast,
                              PaliGemmaConfig, SiglipImageProcessor, SiglipVisionConfig)

    tokenizer = GemmaTokenizerFast(tokenizer_object=_bpe(["<pad>", "<eos>", "<bos>", "<unk>", "<image>"]),
                                   pad_token="<pad>", eos_token="<eos>", bos_token="<bos>", unk_token="<unk>")
    tokenizer.add_special_tokens({"additional_special_tokens": ["<image>"]})
    images = SiglipImageProcessor(size={"height": 32, "width": 32})
    images.image_seq_length = 16
    processor = ColPaliProcessor(image_processor=images, tokenizer=tokenizer)
    vision = SiglipVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                                image_size=32, patch_size=8, projection_dim=32)
    text = GemmaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                       num_attention_heads=2, num_key_value_heads=1, head_dim=16, pad_token_id=tokenizer.pad_token_id)
    vlm = PaliGemmaConfig(vision_config=vision.to_dict(), text_config=text.to_dict(), projection_dim=32,
                          image_token_index=tokenizer.convert_tokens_to_ids("<image>"))
    vlm.vision_config.projection_dim = 32
    torch.manual_seed(seed)
    ColPaliForRetrieval(ColPaliConfig(vlm_config=vlm, embedding_dim=embedding_dim)).save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


QWEN_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
                 "<|image_pad|>", "<|video_pad|>", "<unk>"]


def tiny_colqwen2(folder: Path, seed: int = 0, backbone: str = "qwen2_vl", embedding_dim: int = 8) -> Path:
    """ColQwen2ForRetrieval over a tiny Qwen2-VL (``backbone="qwen2_vl"``) or Qwen2.5-VL
    (``"qwen2_5_vl"``: ColQwen2.5's shape), with ColQwen2Processor (Qwen2-VL's PIL image processor,
    56-112 px pages: 4-16 merged patches)."""
    import torch
    from transformers import (ColQwen2Config, ColQwen2ForRetrieval, ColQwen2Processor, Qwen2_5_VLConfig,
                              Qwen2TokenizerFast, Qwen2VLConfig, Qwen2VLImageProcessor)

    tokenizer = Qwen2TokenizerFast(tokenizer_object=_bpe(QWEN_SPECIALS), pad_token="<|endoftext|>",
                                   eos_token="<|im_end|>", unk_token="<unk>")
    images = Qwen2VLImageProcessor(min_pixels=28 * 28 * 4, max_pixels=28 * 28 * 16, patch_size=14, merge_size=2,
                                   temporal_patch_size=2)
    processor = ColQwen2Processor(image_processor=images, tokenizer=tokenizer)
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in QWEN_SPECIALS}
    text = dict(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=512,
                rope_scaling={"type": "mrope", "mrope_section": [2, 2, 4]})
    tokens = dict(image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
                  vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"])
    if backbone == "qwen2_vl":
        vision = dict(depth=1, embed_dim=16, hidden_size=32, num_heads=2, mlp_ratio=2, patch_size=14,
                      spatial_merge_size=2, temporal_patch_size=2, in_chans=3)
        vlm = Qwen2VLConfig(text_config=text, vision_config=vision, **tokens, **text)
    else:
        vision = dict(depth=1, hidden_size=16, out_hidden_size=32, intermediate_size=32, num_heads=2, patch_size=14,
                      spatial_merge_size=2, temporal_patch_size=2, in_channels=3, fullatt_block_indexes=[0],
                      window_size=56)
        vlm = Qwen2_5_VLConfig(text_config=text, vision_config=vision, **tokens, **text)
    torch.manual_seed(seed)
    ColQwen2ForRetrieval(ColQwen2Config(vlm_config=vlm, embedding_dim=embedding_dim)).save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder
