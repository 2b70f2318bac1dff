"""durak/python-first: the first legal action, through the SDK. The trivial agent whose
decisions per second and instantiation time `croupier-bench` reports for Python."""

from croupier import durak


class First(durak.Agent):
    def decide(self, obs, legal, ctx):
        return legal[0]


DurakAgent = durak.export(First)
