"""The members of a llama_cpp.Llama that llama-cpp-python keeps private and the embedded engine
needs (its context, model, batch and sampler set-up for raw llama.cpp calls): the one module that
reaches into them, so a new llama-cpp-python release is checked against this file."""

from __future__ import annotations


def context(llm):
    """The Llama's context wrapper (LlamaContext: what a sampler samples from)."""
    return llm._ctx


def context_ptr(llm):
    """The raw llama_context pointer, for llama_cpp's C functions."""
    return llm._ctx.ctx


def model(llm):
    """The Llama's model wrapper (LlamaModel: detokenize, token_get_text, vocab)."""
    return llm._model


def batch(llm):
    """The Llama's batch wrapper (LlamaBatch: set_batch, and .batch for llama_decode)."""
    return llm._batch


def init_sampler(llm, **params):
    """A sampler set up the way Llama.generate sets up its own."""
    return llm._init_sampler(**params)
