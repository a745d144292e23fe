"""Words the absolute-position lessons show for the core's codes."""

# Who initialises token embeddings each way (posenc_core.absolute.EMBEDDING_INITS), for the init picker
INIT_USERS = {
    "normal(0, 1)": "torch.nn.Embedding's default",
    "normal(0, 0.02)": "BERT and GPT-2 (initializer_range = 0.02)",
    "normal(0, 1/sqrt(d))": "tensor2tensor and fairseq (d^-0.5), meant to be multiplied by sqrt(d)",
}
