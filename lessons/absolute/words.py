"""Words the absolute-position lessons show for the core's codes."""

from page_kit.i18n import N_

# Who initialises token embeddings each way (posenc_core.absolute.EMBEDDING_INITS), for the init picker; marked for
# the catalogue and translated where they are shown (this module's constants are built once per process)
INIT_USERS = {
    "normal(0, 1)": N_("torch.nn.Embedding's default"),
    "normal(0, 0.02)": N_("BERT and GPT-2 (initializer_range = 0.02)"),
    "normal(0, 1/sqrt(d))": N_("tensor2tensor and fairseq (d^-0.5), meant to be multiplied by sqrt(d)"),
}
