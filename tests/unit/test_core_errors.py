from memagent.core.errors import exception_chain


def test_exception_chain_follows_causes_once() -> None:
    try:
        try:
            raise ConnectionError("down")
        except ConnectionError as inner:
            raise RuntimeError("wrapped") from inner
    except RuntimeError as outer:
        chain = exception_chain(outer)
    assert [type(e) for e in chain] == [RuntimeError, ConnectionError]
    loop = ValueError("self")
    loop.__context__ = loop
    assert exception_chain(loop) == [loop]
