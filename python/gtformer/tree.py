"""The topic tree as a small Node class."""


class Node:
    """One topic of the tree.

    id: the topic's id; parent: the parent's id (-1 for the root); level:
    depth from the root (0); share: the topic's share of the words (from
    topics.json); words: its top words by weight; children: list of Node.
    """

    __slots__ = ("id", "parent", "level", "share", "words", "children")

    def __init__(self, id, parent, level, share, words):
        self.id = id
        self.parent = parent
        self.level = level
        self.share = share
        self.words = words
        self.children = []

    def walk(self):
        """The subtree's nodes in depth-first (pre-)order, this one first."""
        stack = [self]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))

    def find(self, id):
        """The node of topic id in this subtree, or None."""
        for n in self.walk():
            if n.id == id:
                return n
        return None

    def to_dict(self):
        """Nested dicts: {"id", "parent", "level", "share", "words", "children": [...]}."""
        return {
            "id": self.id,
            "parent": self.parent,
            "level": self.level,
            "share": self.share,
            "words": list(self.words),
            "children": [c.to_dict() for c in self.children],
        }

    def __repr__(self):
        return f"Node(id={self.id}, level={self.level}, share={self.share:.3f}, words={self.words[:3]}, children={len(self.children)})"
