"""gtformer in a notebook: read a model folder written by `gtformer train
--out DIR`, and talk to `gtformer serve`.

    import gtformer
    gt = gtformer.load("out", data="corpus")   # data: the training --data
    gt.topic_info()                            # DataFrame (pandas) or list of dicts
    gt.document_info()
    gt.embeddings(); gt.doc_topics(); gt.tree(); gt.metrics(); gt.weights()
    gt.facets("year"); gt.topic_links(1)      # fields per topic; which topics link
    gtformer.Client("http://127.0.0.1:8080").embed(["some text"])

Training and serving stay with the Go program; this package only reads.
"""

from .client import Client
from .errors import GtformerError, ServerError
from .model import Model, load
from .tree import Node

__all__ = ["Client", "GtformerError", "Model", "Node", "ServerError", "load"]
