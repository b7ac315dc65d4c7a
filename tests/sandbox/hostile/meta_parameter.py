"""Red team round 19, no tampering: a TinyTransformer with one more parameter, 16384 x 16384 on
the meta device (no memory in the sandbox), never used. The judge built tensors of the shapes
the model reported (the Pre-LN check loads known weights): 3.5 GB of its memory."""

_TinyTransformer = TinyTransformer  # noqa: F821 (the plain style's, defined before this file)


class TinyTransformer(_TinyTransformer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.extra = nn.Parameter(torch.empty(16384, 16384, device="meta"))  # noqa: F821
