"""Words the pages of 'Position in today's models' show for the core's codes (posenc_core.todays_models)."""

# The four models of a DroPE run (posenc_core.todays_models.DROPE_VARIANTS)
DROPE_LABELS = {
    "rope": "RoPE (as trained)",
    "dropped": "rotations dropped",
    "drope": "DroPE (recalibrated)",
    "nope": "NoPE from scratch",
}

# The three attentions the stick-breaking page compares (posenc_core.todays_models.STICK_COMPARED)
STICK_NAMES = {"stick_breaking": "stick-breaking", "alibi": "softmax + ALiBi", "softmax": "softmax, no positions"}
