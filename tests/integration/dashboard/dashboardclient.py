"""The dashboard as a browser's scripts reach it: HTTPS with the hub's CA, a cookie jar, the CSRF header.

`DashboardProcess` runs `flotilla dashboard` as a child process (like every component in
`tests/support/processes.py`); `DashboardUser` is one signed-in browser session over the standard
library's HTTP client, so the API tests exercise the same cookie, origin and CSRF rules a page does.
"""

from __future__ import annotations

import http.cookiejar
import json
import re
import ssl
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from tests.support.processes import ChildProcess

DASHBOARD_SERVING = re.compile(r"flotilla dashboard: serving on (https://\S+)")
SIGN_IN_LINK = re.compile(r"flotilla dashboard: sign in at https://[^/\s]+(/\S+)")


@dataclass
class DashboardProcess(ChildProcess):
    """`flotilla dashboard --kubeconfig HUB --address 127.0.0.1:0 --auto-sign-in`; `url` once it
    serves, and `sign_in_path`, the one-time sign-in link it printed (path and code)."""

    component: ClassVar[str] = "dashboard"
    stop_timeout: ClassVar[float] = 10.0
    kubeconfig: Path
    log_dir: Path
    url: str = ""
    sign_in_path: str = ""

    def start(self, timeout: float = 30.0) -> DashboardProcess:
        args = ["dashboard", "--kubeconfig", str(self.kubeconfig), "--address", "127.0.0.1:0"]
        args.append("--auto-sign-in")
        self.spawn(self.log_dir, args, timeout)
        return self

    def started(self, log: str) -> bool:
        serving, link = DASHBOARD_SERVING.search(log), SIGN_IN_LINK.search(log)
        if serving and link:
            self.url, self.sign_in_path = serving.group(1), link.group(1)
        return serving is not None and link is not None


@dataclass
class Answer:
    status: int
    body: Any


@dataclass
class DashboardUser:
    """One browser session: its cookies, and the CSRF token `/api/signin` gave it."""

    url: str
    ca_file: Path
    csrf: str = ""
    jar: http.cookiejar.CookieJar = field(default_factory=http.cookiejar.CookieJar)

    def _opener(self) -> urllib.request.OpenerDirector:
        context = ssl.create_default_context(cafile=str(self.ca_file))
        return urllib.request.build_opener(
            urllib.request.HTTPSHandler(context=context), urllib.request.HTTPCookieProcessor(self.jar)
        )

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        csrf: str | None = None,
        origin: str | None = None,
        timeout: float = 90.0,
    ) -> Answer:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if method != "GET":
            headers["X-CSRF-Token"] = self.csrf if csrf is None else csrf
        if origin is not None:
            headers["Origin"] = origin
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.url.rstrip("/") + path, data=data, method=method, headers=headers
        )
        try:
            with self._opener().open(request, timeout=timeout) as response:
                return Answer(response.status, _decoded(response.read()))
        except urllib.error.HTTPError as error:
            return Answer(error.code, _decoded(error.read()))

    def get(self, path: str) -> Any:
        answer = self.request("GET", path)
        assert answer.status == 200, (path, answer)
        return answer.body

    def post(self, path: str, body: Any) -> Answer:
        return self.request("POST", path, body)

    def sign_in(self, token: str) -> DashboardUser:
        answer = self.request("POST", "/api/signin", {"token": token})
        assert answer.status == 200, answer
        self.csrf = answer.body["csrf"]
        return self


def _decoded(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode(errors="replace")
