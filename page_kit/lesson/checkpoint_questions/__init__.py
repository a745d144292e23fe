"""Each section's checkpoint, one module a section: its questions, the beliefs behind their wrong options and
their checks (page_kit.lesson.checkpoints assembles them)."""

from page_kit.lesson.checkpoint_questions import (
    absolute,
    attention_bias,
    diffusion,
    encoders,
    images,
    inference,
    lab,
    long_context,
    multimodal,
    real_models,
    rope,
    todays_models,
    why_position,
)

SECTIONS = (why_position, absolute, rope, attention_bias, long_context, todays_models, encoders, multimodal,
            diffusion, images, lab, real_models, inference)  # in the course's order

__all__ = ["SECTIONS", "why_position", "absolute", "rope", "attention_bias", "long_context", "todays_models",
           "encoders", "multimodal", "diffusion", "images", "lab", "real_models", "inference"]
