"""``Client(url, token)``: the CRUX workbench's REST API from Python."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pandas as pd

from crux_client.errors import ApiError, JobFailed
from crux_client.frames import frame_file
from crux_client.params_check import check_params, kind_schemas
from crux_client.workspaces import WorkspacesMixin

FINISHED = ("succeeded", "failed", "cancelled")
PAGE_SIZE = 10_000

Job = dict[str, Any]


def _name(value: str) -> str:
    """A collection name or topic id as one URL path segment."""
    return quote(value, safe="")


class Client(WorkspacesMixin):
    """A session with one workbench as the account of ``token`` (made on the account's
    "API tokens" page or with ``manage.py create_api_token --user NAME``)."""

    def __init__(
        self,
        url: str,
        token: str,
        *,
        timeout: float = 120.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.http = httpx.Client(
            base_url=url.rstrip("/") + "/api/v1/",
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=timeout,
            transport=transport,
        )
        self._kind_schemas: dict[str, dict[str, Any]] | None = None
        self._result_tables: dict[str, dict[str, Any]] | None = None

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- plumbing ------------------------------------------------------------------------

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """The JSON answer of one call; ApiError for a 4xx/5xx."""
        response = self.http.request(method, path, **kwargs)
        if response.status_code >= 400:
            try:
                body = response.json()
            except ValueError:
                body = {"detail": response.text[:500]}
            raise ApiError(response.status_code, body.get("detail", ""), body.get("errors"))
        if response.status_code == 204:  # a deletion: no body
            return None
        return response.json()

    def _pages(self, path: str, params: dict[str, Any]) -> Iterator[dict[str, Any]]:
        page = 1
        while True:
            body = self.request(
                "GET", path, params={**params, "page": page, "page_size": PAGE_SIZE}
            )
            yield from body["results"]
            if not body.get("next"):
                return
            page += 1

    # ---- collections and imports ---------------------------------------------------------

    def collections(self) -> pd.DataFrame:
        rows = list(self._pages("collections/", {}))
        return pd.json_normalize(rows) if rows else pd.DataFrame()

    def collection(self, name: str) -> dict[str, Any]:
        return self.request("GET", f"collections/{_name(name)}/")

    def create_collection(
        self, name: str, description: str = "", workspace: str | None = None
    ) -> dict[str, Any]:
        """An empty collection in ``workspace`` (default: your only writable one)."""
        body = {"name": name, "description": description}
        if workspace is not None:
            body["workspace"] = workspace
        return self.request("POST", "collections/", json=body)

    def upload(
        self,
        collection: str,
        fmt: str,
        data: str | os.PathLike | bytes | pd.DataFrame,
        **params: Any,
    ) -> Job:
        """Import a file (a path, bytes or a DataFrame in the format's columns) into the
        collection as a job; returns the job (``wait`` for it). ``params``: the format's
        parameters, e.g. ``run_name=``, ``judge=``, ``judge_kind=``."""
        if isinstance(data, pd.DataFrame):
            name, content = frame_file(fmt, data, str(params.get("run_name") or "run"))
        elif isinstance(data, bytes):
            name, content = f"{fmt}.txt", data
        else:
            name = os.path.basename(os.fspath(data))
            with open(data, "rb") as handle:
                content = handle.read()
        fields = {"format": fmt}
        for key, value in params.items():
            if value is not None:
                fields[key] = str(value).lower() if isinstance(value, bool) else str(value)
        body = self.request(
            "POST",
            f"collections/{_name(collection)}/imports/",
            data=fields,
            files={"file": (name, content)},
        )
        return body["job"]

    # ---- jobs ----------------------------------------------------------------------------

    def job_kinds(self) -> dict[str, dict[str, Any]]:
        """Each startable kind's ``params`` schema, from the server's published OpenAPI
        document (read once per client)."""
        if self._kind_schemas is None:
            self._kind_schemas = kind_schemas(self.request("GET", "schema/"))
        return self._kind_schemas

    def start_job(self, collection: str, kind: str, **params: Any) -> Job:
        """Start a job of ``kind`` with its declared parameters (absent: their defaults;
        ``run=`` a run's name or id). The params are checked against the server's schema
        first: ``ParamsRefused`` names an unknown parameter or a value out of bounds."""
        check_params(kind, params, self.job_kinds())
        body = self.request(
            "POST", f"collections/{_name(collection)}/jobs/", json={"kind": kind, "params": params}
        )
        return body["job"]

    def job(self, job: Job | int) -> Job:
        return self.request("GET", f"jobs/{_job_id(job)}/")

    def jobs(self, **filters: Any) -> pd.DataFrame:
        """Jobs, newest first; filters: ``kind``, ``state``, ``collection``."""
        return pd.DataFrame(list(self._pages("jobs/", filters)))

    def cancel(self, job: Job | int) -> Job:
        return self.request("POST", f"jobs/{_job_id(job)}/cancel/")

    def retry(self, job: Job | int) -> Job:
        return self.request("POST", f"jobs/{_job_id(job)}/retry/")

    def wait(
        self,
        job: Job | int,
        *,
        timeout: float | None = None,
        poll: float = 1.0,
        progress: bool = True,
    ) -> Job:
        """Poll until the job finishes (a tqdm bar of done/total when tqdm is installed);
        the finished job, or JobFailed when it failed or was cancelled."""
        started = time.monotonic()
        bar = _progress_bar(progress)
        try:
            while True:
                current = self.job(job)
                if bar is not None:
                    bar.total = current["total"] or None
                    bar.n = current["done"]
                    bar.set_description(f"job #{current['id']} {current['state']}")
                    bar.refresh()
                if current["state"] in FINISHED:
                    break
                if timeout is not None and time.monotonic() - started > timeout:
                    raise TimeoutError(f"job #{current['id']} still {current['state']}")
                time.sleep(poll)
        finally:
            if bar is not None:
                bar.close()
        if current["state"] != "succeeded":
            raise JobFailed(current)
        return current

    # ---- results -------------------------------------------------------------------------

    def leaderboard(self, collection: str, **choices: Any) -> pd.DataFrame:
        """One row per run (index ``run``), one column per metric (ir_measures' names for the
        IR measures); choices as on the page: ``judge``, ``k``, ``tau``, ``qrels``, ..."""
        body = self.request("GET", f"collections/{_name(collection)}/leaderboard/", params=choices)
        rows = [{"run": r["run"], **r["metrics"]} for r in body["runs"]]
        frame = pd.DataFrame(rows, columns=["run", *body["metrics"]]).set_index("run")
        frame.attrs["warnings"] = body["warnings"]
        return frame

    def judgments(self, collection: str, judge: str | None = None) -> pd.DataFrame:
        """One judge's judgments (CRUX's stored results); blank: the leaderboard's judge."""
        return self.results(collection, "crux", judge=judge)

    def qrels(self, collection: str, source: str | None = None) -> pd.DataFrame:
        params = {"source": source} if source else {}
        return pd.DataFrame(list(self._pages(f"collections/{_name(collection)}/qrels/", params)))

    def coverage_matrix(self, collection: str, topic: str, **choices: Any) -> dict[str, Any]:
        path = f"collections/{_name(collection)}/topics/{_name(topic)}/coverage-matrix/"
        return self.request("GET", path, params=choices)

    def agreement(self, collection: str, **choices: Any) -> dict[str, Any]:
        return self.request("GET", f"collections/{_name(collection)}/agreement/", params=choices)

    def judge_report(self, collection: str, **choices: Any) -> dict[str, Any]:
        return self.request("GET", f"collections/{_name(collection)}/judge-report/", params=choices)

    # ---- each method's stored results, as the server's registry lists them --------------

    def result_tables(self) -> dict[str, dict[str, Any]]:
        """Each method's stored-results endpoint (``GET results/``): its path, filters and
        the JSON key of its rows (read once per client)."""
        if self._result_tables is None:
            tables = self.request("GET", "results/")["methods"]
            self._result_tables = {t["method"]: t for t in tables}
        return self._result_tables

    def results(self, collection: str, method: str, **filters: Any) -> pd.DataFrame:
        """A method's stored results, one row per query (or per run, as the method serves
        them): any method the server declares (``result_tables()``), with its filters."""
        tables = self.result_tables()
        if method not in tables:
            raise ValueError(f"no stored results of {method!r}; methods: {', '.join(tables)}")
        table = tables[method]
        unknown = sorted(set(filters) - set(table["filters"]))
        if unknown:
            raise ValueError(
                f"{method} results take no {', '.join(unknown)}; "
                f"filters: {', '.join(table['filters']) or 'none'}"
            )
        path = table["path"].replace("{collection}", _name(collection))
        params = {k: v for k, v in filters.items() if v is not None}
        if table["rows"] == "results":
            return pd.DataFrame(list(self._pages(path, params)))
        return pd.DataFrame(self.request("GET", path, params=params)[table["rows"]])

    def dense(self, collection: str, **filters: Any) -> pd.DataFrame:
        """DENSE per question (``dse``, ``uncertain``, ``W``, ``labels``, ``answers``, ...);
        filters: ``run``, ``k``, ``topic``."""
        return self.results(collection, "dense", **filters)

    def seper(self, collection: str, **filters: Any) -> pd.DataFrame:
        """SePer per question and context (``seper_s``, ``seper_h``, ``delta_s``, ...);
        filters: ``run``, ``k``, ``topic``, ``context`` (none, passage, run, oracle)."""
        return self.results(collection, "seper", **filters)

    def reteval(self, collection: str, **filters: Any) -> pd.DataFrame:
        """LLM-retEval per question, run and k (``recall``, ``verdict``, ``category``, ...);
        filters: ``run``, ``k``, ``topic``, ``judge``, ``category``."""
        return self.results(collection, "reteval", **filters)

    def reteval_table(self, collection: str, **choices: Any) -> pd.DataFrame:
        """The LLM-retEval table: one row per run and k; choices ``run``, ``k``, ``judge``."""
        path = f"collections/{_name(collection)}/reteval/table/"
        return pd.DataFrame(self.request("GET", path, params=choices)["rows"])

    def scaar(self, collection: str, **filters: Any) -> pd.DataFrame:
        """SCAAR per analysed answer (``n_retrievals``, ``score_before``, ``sentences``, ...);
        filters: ``system``, ``output``, ``topic``."""
        return self.results(collection, "scaar", **filters)

    def nuggets(self, collection: str, **filters: Any) -> pd.DataFrame:
        """Nugget scores per run (with its ``topics``); filter: ``judge``."""
        return self.results(collection, "nuggets", **filters)

    # ---- asynchronous exports ------------------------------------------------------------

    def export(self, kind: str, fmt: str = "csv", **params: Any) -> Job:
        """Start an export job (``wait`` for it, then ``download``): ``campaign-labels``
        (``campaign=``), ``judgments`` (``collection=``, ``judge=``) or ``qrels``
        (``collection=``, ``source=``), as ``csv`` or ``json``."""
        body = {"kind": kind, "format": fmt, "params": {k: str(v) for k, v in params.items()}}
        return self.request("POST", "exports/", json=body)["job"]

    def download(self, job: Job | int, path: str | os.PathLike | None = None) -> bytes | str:
        """A finished export's file: its bytes, or written to ``path`` (returned)."""
        link = self.job(job).get("download")
        if not link:
            raise ApiError(404, f"job #{_job_id(job)} has no file to download (yet)")
        with self.http.stream("GET", link["url"]) as response:
            if response.status_code >= 400:
                response.read()
                raise ApiError(response.status_code, response.text[:500])
            if path is None:
                return response.read()
            with open(path, "wb") as out:
                for chunk in response.iter_bytes():
                    out.write(chunk)
        return os.fspath(path)

    # ---- campaigns -----------------------------------------------------------------------

    def create_campaign(
        self, name: str, collection: str, items: list[dict[str, Any]], **settings: Any
    ) -> dict[str, Any]:
        """A passage-rating campaign over ``items`` (``{"topic", "position", "passage"}``);
        settings: ``overlap``, ``annotators``, ``attention_count``, ``seed``."""
        body = {"name": name, "collection": collection, "items": items, **settings}
        return self.request("POST", "campaigns/", json=body)

    def campaign(self, slug: str) -> dict[str, Any]:
        return self.request("GET", f"campaigns/{_name(slug)}/")

    def labels(self, slug: str) -> pd.DataFrame:
        """Every label of every annotator of the campaign."""
        return pd.DataFrame(self.request("GET", f"campaigns/{_name(slug)}/labels/")["labels"])

    def annotator_quality(self, slug: str) -> pd.DataFrame:
        """The campaign's annotator quality table (one row per annotator, the CSV's columns)."""
        body = self.request("GET", f"campaigns/{_name(slug)}/annotator-quality/")
        return pd.DataFrame(body["annotators"], columns=body["columns"])

    # ---- review and adjudication ---------------------------------------------------------

    def review_queue(self, collection: str, **choices: Any) -> dict[str, Any]:
        """The disagreements a review campaign would hold, ``{"n_items", "items"}``; choices:
        ``task_type``, ``kind``, ``judges`` (a list), ``topics``, ``min_gap``, ``sample``,
        ``sampling``, ``seed``."""
        path = f"collections/{_name(collection)}/review-queue/"
        return self.request("GET", path, params=choices)

    def create_review_campaign(self, collection: str, name: str, **choices: Any) -> dict[str, Any]:
        """A review campaign of the queue these choices make (as ``review_queue``), with
        ``show_sources``, ``guidelines_md`` and ``reviewers`` (account names)."""
        path = f"collections/{_name(collection)}/review-campaigns/"
        return self.request("POST", path, json={"name": name, **choices})

    def review_campaigns(self, collection: str | None = None) -> list[dict[str, Any]]:
        """The review campaigns the account may review (of one collection, if named)."""
        path = f"collections/{_name(collection)}/review-campaigns/" if collection else ""
        return self.request("GET", path or "review-campaigns/")

    def review_campaign(self, slug: str) -> dict[str, Any]:
        return self.request("GET", f"review-campaigns/{_name(slug)}/")

    def review_items(self, slug: str, decided: bool | None = None) -> list[dict[str, Any]]:
        """Every item of a review campaign (``decided``: only the decided or undecided ones),
        with its payload and its options A, B, C."""
        params = {} if decided is None else {"decided": str(decided).lower()}
        return list(self._pages(f"review-campaigns/{_name(slug)}/items/", params))

    def decide(
        self, slug: str, item: int, option: str = "", other: str = "", note: str = ""
    ) -> dict[str, Any]:
        """Decide an item: an ``option`` letter or an ``other`` label. Deciding it again
        answers the stored decision; an item another reviewer decided raises ApiError 409."""
        path = f"review-campaigns/{_name(slug)}/items/{int(item)}/decision/"
        return self.request("POST", path, json={"option": option, "other": other, "note": note})

    def merge_adjudicated(
        self, collection: str, name: str, task: str = "passage_rating", campaigns: list[str] = ()
    ) -> dict[str, Any]:
        """Several review campaigns' decisions as the judge ``adjudicated:merged:<name>``."""
        body = {"name": name, "task": task, "campaigns": list(campaigns)}
        return self.request("POST", f"collections/{_name(collection)}/review-merges/", json=body)

    def review_verdict(self, slug: str) -> dict[str, Any]:
        """Who was right (as ``manage.py review_verdict --format json``)."""
        return self.request("GET", f"review-campaigns/{_name(slug)}/verdict/")


def _job_id(job: Job | int) -> int:
    return int(job["id"] if isinstance(job, dict) else job)


def _progress_bar(wanted: bool):
    if not wanted:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm is optional (crux-client[progress])
        return None
    return tqdm(total=None, unit="item", leave=False)
