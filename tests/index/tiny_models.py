"""Tiny randomly initialised transformers models, built and saved inside the tests (nothing is
downloaded): a Llama causal LM, a LLaVA vision-language model and a BGE-M3-shaped XLM-RoBERTa with
its sparse and ColBERT heads. Their outputs are meaningless but deterministic for a seed, which is
all the backend tests need: the real loading, batching and decoding code runs on them."""
from __future__ import annotations

from pathlib import Path

CORPUS = ["install the pump on a level concrete base", "switch off the mains supply",
          "reconcile the checking account", "describe the image in its context",
          "summarise the section of the document", "a red button on a grey panel",
          "enter a deposit into savings", "credit card payment", "user assistant"]
CHAT_TEMPLATE = ("{% for m in messages %}{{ m['role'] }}: {% if m['content'] is string %}{{ m['content'] }}"
                 "{% else %}{% for p in m['content'] %}{% if p['type'] == 'image' %}<image> {% else %}"
                 "{{ p['text'] }}{% endif %}{% endfor %}{% endif %} {% endfor %}"
                 "{% if add_generation_prompt %}assistant: {% endif %}")


def word_tokenizer(specials: list[str], post_processor=None, **special_names):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token=special_names.get("unk_token", specials[0])))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(CORPUS, trainers.WordLevelTrainer(special_tokens=specials))
    if post_processor is not None:
        tok.post_processor = post_processor
    return PreTrainedTokenizerFast(tokenizer_object=tok, **special_names)


def tiny_llama(folder: Path, seed: int = 0) -> Path:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tok = word_tokenizer(["[UNK]", "[PAD]", "<s>", "</s>"], unk_token="[UNK]", pad_token="[PAD]",
                         bos_token="<s>", eos_token="</s>")
    tok.chat_template = CHAT_TEMPLATE
    config = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=512,
                         pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config.eos_token_id = None   # random weights: generate the full length
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def tiny_llava(folder: Path, seed: int = 0) -> Path:
    import torch
    from transformers import (CLIPImageProcessor, CLIPVisionConfig, LlamaConfig, LlavaConfig,
                              LlavaForConditionalGeneration, LlavaProcessor)

    tok = word_tokenizer(["[UNK]", "[PAD]", "<s>", "</s>", "<image>"], unk_token="[UNK]", pad_token="[PAD]",
                         bos_token="<s>", eos_token="</s>")
    tok.add_special_tokens({"additional_special_tokens": ["<image>"]})
    image_processor = CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    processor = LlavaProcessor(image_processor=image_processor, tokenizer=tok, patch_size=16,
                               vision_feature_select_strategy="default", chat_template=CHAT_TEMPLATE,
                               num_additional_image_tokens=1)
    vision = CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                              image_size=32, patch_size=16, projection_dim=32)
    text = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                       num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=1024,
                       pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    config = LlavaConfig(vision_config=vision, text_config=text, image_token_index=tok.convert_tokens_to_ids("<image>"),
                         vision_feature_select_strategy="default", vision_feature_layer=-1)
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(config)
    model.generation_config.eos_token_id = None
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


def tiny_bge_m3(folder: Path, seed: int = 0, heads: bool = True) -> Path:
    import torch
    from tokenizers import processors
    from transformers import XLMRobertaConfig, XLMRobertaModel

    post = processors.TemplateProcessing(single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
                                         special_tokens=[("<s>", 0), ("</s>", 2)])
    tok = word_tokenizer(["<s>", "<pad>", "</s>", "<unk>"], post, bos_token="<s>", eos_token="</s>",
                         unk_token="<unk>", pad_token="<pad>", cls_token="<s>", sep_token="</s>")
    config = XLMRobertaConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                              intermediate_size=64, max_position_embeddings=130, pad_token_id=1)
    torch.manual_seed(seed)
    XLMRobertaModel(config).save_pretrained(folder)
    tok.save_pretrained(folder)
    if heads:
        torch.save(torch.nn.Linear(32, 1).state_dict(), folder / "sparse_linear.pt")
        torch.save(torch.nn.Linear(32, 32).state_dict(), folder / "colbert_linear.pt")
    return folder
