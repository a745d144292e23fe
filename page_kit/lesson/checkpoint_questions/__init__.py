"""The checks of each section's checkpoint (page_kit.lesson.checkpoints), one module a section."""

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

__all__ = ["why_position", "absolute", "rope", "attention_bias", "long_context", "todays_models", "encoders",
           "multimodal", "diffusion", "images", "lab", "real_models", "inference"]
