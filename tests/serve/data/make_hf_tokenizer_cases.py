"""Writes hf_tokenizer_cases.json beside this file: texts and the ids Hugging Face's `tokenizers` gives them under
each pre-tokenizer style kforge serve reads (GPT-2's ByteLevel split, Llama 3's and Qwen2's Split regexes, Digits),
on tiny-text-tokenizer.json (tools/make-model-folder.py --shape tiny-text --tokenizer, seed 1). The C++ tokenizer
must give the same ids (tests/serve/tokenizer_test.cpp). Run with a Python that has `tokenizers`:
    build/vllm-venv/bin/python tests/serve/data/make_hf_tokenizer_cases.py
"""
import json
import os
import random

from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
LLAMA3 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
          r"\s*[\r\n]+|\s+(?!\S)|\s+")


def byte_level(use_regex):
    return {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": use_regex}


def split_then_bytes(pattern):
    return {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}, byte_level(False)]}


def main():
    base = json.load(open(os.path.join(HERE, "tiny-text-tokenizer.json")))
    styles = {"gpt2": byte_level(True), "llama3": split_then_bytes(LLAMA3),
              "qwen2": split_then_bytes(LLAMA3.replace(r"\p{N}{1,3}", r"\p{N}")),
              "digits": {"type": "Sequence",
                         "pretokenizers": [{"type": "Digits", "individual_digits": True}, byte_level(True)]}}
    texts = ["Hello world, the quick brown fox 123!", "  two  spaces\n\tand tabs ", "naïve café — 東京 🚀",
             "it's they'll WE'RE", "x", "<|endoftext|>after", "a1b22c333 4444", "\n\n\nend", "trailing   "]
    rng = random.Random(3)
    alphabet = "abcdefghij klmnop  qrstuvwxyz\n.,!?'0123456789ÉéüÜ東京"
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(50)]
    tokenizers = {name: Tokenizer.from_str(json.dumps(dict(base, pre_tokenizer=pre))) for name, pre in styles.items()}
    cases = [{"text": t, "ids": {n: tok.encode(t).ids for n, tok in tokenizers.items()},
              "decoded": tokenizers["gpt2"].decode(tokenizers["gpt2"].encode(t).ids)} for t in texts]
    with open(os.path.join(HERE, "hf_tokenizer_cases.json"), "w") as f:
        json.dump({"styles": styles, "cases": cases}, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
