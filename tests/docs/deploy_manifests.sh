#!/usr/bin/env bash
# The deployment examples hold what they promise: the Kubernetes manifests parse as YAML and the Job has the
# fields a Job needs and this one relies on (parallelism, one job file for every pod, passwords from a
# mounted secret, liveness on /status, the Prometheus annotations, exit 2 failing the Job, exit 3 not
# counted); the job file inside the ConfigMap has a job_id; the systemd units pass `systemd-analyze verify`
# (where systemd-analyze exists) and say what a graceful stop exits with.
#   tests/docs/deploy_manifests.sh ROOT
set -euo pipefail
root="$1"

/usr/bin/python3 - "$root/deploy/kubernetes" <<'PY'
import pathlib, sys, yaml

folder = pathlib.Path(sys.argv[1])
failures = []
def check(condition, what):
    if not condition:
        failures.append(what)

documents = {}
for path in sorted(folder.glob("*.yaml")):
    for document in yaml.safe_load_all(path.read_text()):
        check(isinstance(document, dict) and "apiVersion" in document and "kind" in document and
              document.get("metadata", {}).get("name"), f"{path.name}: a manifest without apiVersion, kind or name")
        documents[(document["kind"], document["metadata"]["name"])] = document

job = documents.get(("Job", "rowpump-backfill-orders"))
check(job is not None, "no Job rowpump-backfill-orders")
if job:
    check(job["apiVersion"] == "batch/v1", "the Job is not batch/v1")
    spec = job["spec"]
    check(isinstance(spec.get("parallelism"), int) and spec["parallelism"] > 1, "parallelism must be a number above 1")
    check("completions" not in spec, "completions set: the pods share one job, a work queue")
    rules = spec.get("podFailurePolicy", {}).get("rules", [])
    codes = {rule["action"]: rule["onExitCodes"]["values"] for rule in rules if "onExitCodes" in rule}
    check(codes.get("FailJob") == [2], "exit 2 (bad job file) must fail the Job")
    check(codes.get("Ignore") == [3], "exit 3 (clean stop) must not count as a failure")
    template = spec["template"]
    annotations = template["metadata"].get("annotations", {})
    check(annotations.get("prometheus.io/scrape") == "true" and annotations.get("prometheus.io/path") == "/metrics",
          "no Prometheus scrape annotations")
    pod = template["spec"]
    check(pod.get("restartPolicy") in ("Never", "OnFailure"), "a Job's restartPolicy must be Never or OnFailure")
    check(pod.get("restartPolicy") == "Never" or not rules, "podFailurePolicy needs restartPolicy: Never")
    container = pod["containers"][0]
    check(container.get("image"), "the container has no image")
    check(container["args"][:1] == ["run"], "the container does not `rowpump run` a job file")
    probe = container.get("livenessProbe", {}).get("httpGet", {})
    check(probe.get("path") == "/status", "no liveness probe on /status")
    ports = {port["name"]: port["containerPort"] for port in container.get("ports", [])}
    check(probe.get("port") in ports or probe.get("port") in ports.values(), "the probe's port is not the container's")
    check(str(ports.get(probe.get("port"), probe.get("port"))) == annotations.get("prometheus.io/port"),
          "Prometheus scrapes another port than the probe's")
    env = {variable["name"]: variable.get("value", "") for variable in container.get("env", [])}
    check(not any(name.endswith("_PASSWORD") for name in env), "a password in an environment variable")
    mounts = {mount["name"]: mount["mountPath"] for mount in container["volumeMounts"]}
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    secret_mounts = [mounts[name] for name, volume in volumes.items() if "secret" in volume and name in mounts]
    check(secret_mounts and all(any(value.startswith(path + "/") for path in secret_mounts)
                                for name, value in env.items() if name.endswith("_PASSWORD_FILE")),
          "the password files are not in the mounted secret")
    maps = [volume["configMap"]["name"] for volume in volumes.values() if "configMap" in volume]
    check(len(maps) == 1, "one ConfigMap holds the job file")
    config = documents.get(("ConfigMap", maps[0])) if maps else None
    check(config is not None, "the job file's ConfigMap is not among the manifests")
    if config:
        job_path = container["args"][1]
        file_name = job_path.rsplit("/", 1)[1]
        check(job_path.rsplit("/", 1)[0] == mounts.get(next(n for n, v in volumes.items() if "configMap" in v)),
              "the job file is not where the ConfigMap is mounted")
        job_file = yaml.safe_load(config["data"][file_name])
        check(job_file.get("job_id"), "the job file has no job_id: the pods would not share one job")
        port = str(job_file.get("throttle", {}).get("http", "")).rsplit(":", 1)[-1]
        check(port == annotations.get("prometheus.io/port"), "rowpump's --http port is not the probe's")
secret = [document for (kind, _), document in documents.items() if kind == "Secret"]
check(len(secret) == 1, "one example Secret")

for failure in failures:
    print("deploy/kubernetes: " + failure, file=sys.stderr)
if failures:
    sys.exit(1)
print(f"deploy/kubernetes: {len(documents)} manifests, the Job's fields as expected")
PY

unit="$root/configs/rowpump-backfill@.service"
grep -qx 'ExecStart=/usr/local/bin/rowpump run jobs/%i.yaml' "$unit" || { echo "$unit: ExecStart is not 'rowpump run jobs/%i.yaml'" >&2; exit 1; }
grep -qx 'SuccessExitStatus=3' "$unit" || { echo "$unit: a graceful stop exits 3, which must be a success" >&2; exit 1; }
grep -qx 'Restart=on-failure' "$unit" || { echo "$unit: no Restart=on-failure" >&2; exit 1; }
if command -v systemd-analyze >/dev/null; then
  # verify wants an instance name and an executable at ExecStart's path: a copy under a temporary
  # directory, with /bin/true in the binary's place, checked with its timer.
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  sed 's|^ExecStart=/usr/local/bin/rowpump |ExecStart=/bin/true |' "$unit" >"$work/rowpump-backfill@orders.service"
  cp "$root/configs/rowpump-backfill@.timer" "$work/rowpump-backfill@orders.timer"
  # verify exits 0 after warnings (an unknown key, a value it cannot parse), so every line it prints counts,
  # except that User= names an account this machine may not have.
  output="$(cd "$work" && systemd-analyze verify --man=no "$work/rowpump-backfill@orders.service" \
      "$work/rowpump-backfill@orders.timer" 2>&1)" || true
  if grep -v -e "^$" -e "Failed to resolve user" -e "Failed to resolve group" -e "User or group" <<<"$output" | grep -q .; then
    echo "systemd-analyze verify:" >&2
    echo "$output" >&2
    exit 1
  fi
  [[ -z "$output" ]] || echo "$output"
  echo "configs/rowpump-backfill@.service and .timer: systemd-analyze verify passed"
else
  echo "systemd-analyze not installed: the unit's keys were checked by grep only"
fi
