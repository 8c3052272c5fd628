import pytest
from PIL import Image

from ham.methods.base import Prompt, PromptImage
from ham.retrieve.retriever import Retrieved
from tests.support.tiny_models import tiny_causal_lm, tiny_llava


@pytest.fixture(scope="session")
def causal_lm_folder(tmp_path_factory):
    return tiny_causal_lm(tmp_path_factory.mktemp("tiny-lm"))


@pytest.fixture(scope="session")
def llava_folder(tmp_path_factory):
    return tiny_llava(tmp_path_factory.mktemp("tiny-llava"))


@pytest.fixture
def image_files(tmp_path):
    """Three small PNGs of different colours and sizes."""
    paths = []
    for n, (colour, size) in enumerate([((200, 20, 20), (40, 30)), ((20, 200, 20), (24, 48)),
                                        ((20, 20, 200), (32, 32))], 1):
        path = tmp_path / f"img{n}.png"
        Image.new("RGB", size, colour).save(path)
        paths.append(path)
    return paths


def text_prompt(text: str) -> Prompt:
    return Prompt(text, text, {}, Retrieved([], []), "test_v1", "test")


def image_prompt(text: str, files) -> Prompt:
    marked = text + "".join(f"\n<img{i}> [[image:{i}]]" for i in range(1, len(files) + 1))
    return Prompt(text, marked, {i: (f"u{i}", f.name) for i, f in enumerate(files, 1)}, Retrieved([], []),
                  "test_v1", "test", images=[PromptImage(i, f"u{i}", f) for i, f in enumerate(files, 1)])
