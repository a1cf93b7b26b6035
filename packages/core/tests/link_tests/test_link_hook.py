import pytest

from kusari.link import Link
from kusari.link_hook import LinkHook


class Twice(Link):
    def forward(self, x, scale=1):
        return 2 * x * scale


class Recorder(LinkHook):
    name = "Recorder"

    def __init__(self):
        self.events = []

    def added(self, link):
        self.events.append(("added", link))

    def deleted(self, link):
        self.events.append(("deleted", link))

    def forward_preprocess(self, args):
        self.events.append(
            ("pre", args.link, args.forward_name, args.args, args.kwargs)
        )

    def forward_postprocess(self, args):
        self.events.append(("post", args.out))


def test_local_hook_lifecycle():
    link, hook = Twice(), Recorder()
    assert link.add_hook(hook) is link
    assert link.local_link_hooks == {"Recorder": hook}
    assert link(3, scale=2) == 12
    link.delete_hook("Recorder")
    assert link(1) == 2
    assert hook.events == [
        ("added", link),
        ("pre", link, "forward", (3,), {"scale": 2}),
        ("post", 12),
        ("deleted", link),
    ]


def test_custom_hook_name_and_duplicates():
    link, hook = Twice(), Recorder()
    link.add_hook(hook, name="mine")
    assert "mine" in link.local_link_hooks
    with pytest.raises(KeyError, match="Hook 'mine' already exists"):
        link.add_hook(Recorder(), name="mine")
    with pytest.raises(KeyError, match="Hook 'other' does not exist"):
        link.delete_hook("other")


def test_add_hook_type_check():
    with pytest.raises(TypeError, match="Hook must be of type LinkHook, got str"):
        Twice().add_hook("hook")


def test_global_hook_with_statement():
    link, hook = Twice(), Recorder()
    with hook:
        assert link(1) == 2
        with pytest.raises(KeyError, match="hook 'Recorder' already exists"):
            with Recorder():
                pass
    link(1)
    assert [e[0] for e in hook.events] == ["added", "pre", "post", "deleted"]
    assert hook.events[0] == ("added", None)


def test_hook_can_alter_arguments_through_kwargs():
    class Scale(LinkHook):
        def forward_preprocess(self, args):
            args.kwargs["scale"] = 10

    link = Twice().add_hook(Scale())
    assert link(1) == 20


def test_base_hook_callbacks_are_noops():
    link = Twice().add_hook(LinkHook())
    assert link(2) == 4
    assert LinkHook.name == "LinkHook"
