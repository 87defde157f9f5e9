//! Baseline host: tokio multi-thread + serde_json, no engine.
fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let v = tokio::spawn(async { serde_json::json!({"ok": true, "n": 1}) }).await.unwrap();
        let h = tokio::task::spawn_blocking(move || serde_json::to_string(&v).unwrap()).await.unwrap();
        println!("hello {h}");
    });
}
