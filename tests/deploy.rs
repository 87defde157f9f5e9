//! The deployment files: the Dockerfile and `deploy/kubernetes/`. Docker cannot build here (no
//! engine on our machines), so the Dockerfile is checked for what it must say; the manifests are
//! parsed and checked for the fields that matter, and validated against Kubernetes' schemas with
//! `kubernetes-validate` (PyPI) when it is installed (`.ci/run` installs it and sets
//! `MCPGEN_REQUIRE_KUBE_VALIDATE=1`).

use std::process::Command;

use serde_yaml::Value as Yaml;

const MANIFESTS: [&str; 5] = ["configmap", "secret", "deployment", "service", "hpa"];

fn manifest(name: &str) -> Yaml {
    let path = format!("deploy/kubernetes/{name}.yaml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn get<'a>(v: &'a Yaml, path: &str) -> &'a Yaml {
    path.split('.').fold(v, |v, key| match key.parse::<usize>() {
        Ok(i) => &v[i],
        Err(_) => &v[key],
    })
}

fn text<'a>(v: &'a Yaml, path: &str) -> &'a str {
    get(v, path).as_str().unwrap_or_else(|| panic!("{path} is not text: {:?}", get(v, path)))
}

#[test]
fn manifests_pass_the_kubernetes_schemas() {
    let files: Vec<String> = MANIFESTS.iter().map(|m| format!("deploy/kubernetes/{m}.yaml")).collect();
    let out = match Command::new("kubernetes-validate").arg("--strict").args(&files).output() {
        Ok(out) => out,
        Err(_) => {
            assert!(
                std::env::var("MCPGEN_REQUIRE_KUBE_VALIDATE").is_err(),
                "kubernetes-validate is required but not installed (pip install kubernetes-validate)"
            );
            eprintln!("skipped: kubernetes-validate not installed (pip install kubernetes-validate)");
            return;
        }
    };
    let report = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{report}");
    assert_eq!(report.matches(" passed for resource ").count(), MANIFESTS.len(), "{report}");
}

#[test]
fn every_manifest_has_its_kind_and_name() {
    for (file, kind) in
        MANIFESTS.iter().zip(["ConfigMap", "Secret", "Deployment", "Service", "HorizontalPodAutoscaler"])
    {
        let m = manifest(file);
        assert_eq!(text(&m, "kind"), kind, "{file}");
        assert!(text(&m, "metadata.name").starts_with("mcpgen"), "{file}");
    }
}

#[test]
fn the_deployment_probes_health_and_readiness_and_runs_as_non_root() {
    let d = manifest("deployment");
    let pod = get(&d, "spec.template.spec");
    assert_eq!(get(pod, "securityContext.runAsNonRoot").as_bool(), Some(true));
    let c = get(pod, "containers.0");
    assert_eq!(text(c, "livenessProbe.httpGet.path"), "/health");
    assert_eq!(text(c, "readinessProbe.httpGet.path"), "/ready");
    assert_eq!(text(c, "envFrom.0.secretRef.name"), text(&manifest("secret"), "metadata.name"));
    assert_eq!(text(pod, "volumes.0.configMap.name"), text(&manifest("configmap"), "metadata.name"));
    assert_eq!(text(c, "args.0"), "/config/api.mcp.json", "serves the ConfigMap's config");
}

#[test]
fn the_hpa_scales_the_deployment() {
    let h = manifest("hpa");
    assert_eq!(text(&h, "spec.scaleTargetRef.kind"), "Deployment");
    assert_eq!(text(&h, "spec.scaleTargetRef.name"), text(&manifest("deployment"), "metadata.name"));
}

#[test]
fn the_configmaps_runtime_config_loads() {
    use std::io::Write;
    let cm = manifest("configmap");
    let config = cm["data"]["api.mcp.json"].as_str().expect("data.api.mcp.json").to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["export", "-", "--format", "mcp"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(config.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list["tools"][0]["name"], "get_status");
}

#[test]
fn the_dockerfile_builds_in_two_stages_and_runs_serve_as_non_root() {
    let text = std::fs::read_to_string("Dockerfile").unwrap();
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.iter().filter(|l| l.starts_with("FROM ")).count(), 2, "multi-stage");
    let user = lines.iter().rfind(|l| l.starts_with("USER ")).expect("a USER line");
    assert!(!user.contains("root") && !user.ends_with(" 0") && !user.contains(" 0:"), "{user}");
    let entry = lines.iter().find(|l| l.starts_with("ENTRYPOINT ")).expect("an ENTRYPOINT");
    assert!(entry.contains(r#"["mcpgen", "serve", "--transport", "http""#), "{entry}");
    // What it copies exists, so the build's context is complete.
    for l in lines.iter().filter(|l| l.starts_with("COPY ") && !l.contains("--from")) {
        let parts: Vec<&str> = l.split_whitespace().collect();
        for src in &parts[1..parts.len() - 1] {
            assert!(std::path::Path::new(src).exists(), "COPY {src}: not in the repository");
        }
    }
}
