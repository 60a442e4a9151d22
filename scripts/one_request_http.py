"""The HTTP/1.1 the aiortc test servers need (whip-aiortc-server.py, whep-aiortc-server.py): one request per connection
— the head, a Content-Length body —, answered by `route(method, path, headers, body)` with (status, headers, text),
then the connection closed. Not a general server: no chunked bodies, no keep-alive."""
import asyncio

async def answer_one_request(reader, writer, route, on_error):
    """Reads one request (10 s for its head), writes route's answer, closes; an exception goes to on_error(error)."""
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        headers = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        status, extra, payload = await route(method, path, headers, body.decode())
        data = payload.encode()
        out = f"HTTP/1.1 {status}\r\nContent-Length: {len(data)}\r\nConnection: close\r\n"
        out += "".join(f"{k}: {v}\r\n" for k, v in extra.items())
        writer.write((out + "\r\n").encode() + data)
        await writer.drain()
    except Exception as error:
        on_error(error)
    finally:
        writer.close()
