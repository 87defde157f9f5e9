//! nginx (Debian's) as a round-robin load balancer in front of mcpgen replicas, on 127.0.0.1, in
//! a directory of its own. Without nginx a test says so and passes, unless
//! `MCPGEN_REQUIRE_NGINX=1` (set by `.ci/run`) makes its absence a failure.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::found_or_skip;

pub fn nginx() -> Option<PathBuf> {
    let found = ["/usr/sbin/nginx", "/usr/bin/nginx"].iter().map(PathBuf::from).find(|p| p.exists());
    found_or_skip(found, "MCPGEN_REQUIRE_NGINX", "nginx not installed (apt-get install nginx-light)")
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// nginx as a round-robin reverse proxy in front of `backends`, in its own directory.
pub struct Nginx {
    child: std::process::Child,
    /// Its `/mcp` URL.
    pub url: String,
    _dir: tempfile::TempDir,
}

impl Nginx {
    pub fn start(binary: &Path, backends: &[String]) -> Nginx {
        Nginx::start_on(binary, backends, free_port())
    }

    /// [`Nginx::start`] on `port` (known before the backends start, when they must name it).
    pub fn start_on(binary: &Path, backends: &[String], port: u16) -> Nginx {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        let servers: String =
            backends.iter().map(|b| format!("    server {b} max_fails=1 fail_timeout=10s;\n")).collect();
        let conf = format!(
            "worker_processes 1;\ndaemon off;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
             events {{ worker_connections 1024; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n\
               fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
               upstream mcpgen {{\n{servers}    keepalive 32;\n  }}\n\
               server {{\n    listen 127.0.0.1:{port};\n    location / {{\n\
                 proxy_pass http://mcpgen;\n      proxy_http_version 1.1;\n\
                 proxy_set_header Connection \"\";\n      proxy_set_header Host $host;\n\
                 proxy_buffering off;\n      proxy_next_upstream error timeout;\n    }}\n  }}\n}}\n"
        );
        let conf_path = dir.path().join("nginx.conf");
        std::fs::write(&conf_path, conf).unwrap();
        let child = std::process::Command::new(binary)
            .arg("-c")
            .arg(&conf_path)
            .arg("-p")
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start nginx");
        let url = format!("http://127.0.0.1:{port}/mcp");
        // Ready when it accepts connections.
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(10), "nginx did not start: {}", error_log(dir.path()));
            std::thread::sleep(Duration::from_millis(20));
        }
        Nginx { child, url, _dir: dir }
    }
}

fn error_log(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM, not SIGKILL: the master stops its workers (a killed master leaves them running).
        let _ = std::process::Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let _ = self.child.wait();
    }
}

/// The backend address (`127.0.0.1:PORT`) of an `/mcp` URL.
pub fn backend(url: &str) -> String {
    url.trim_start_matches("http://").trim_end_matches("/mcp").to_string()
}
