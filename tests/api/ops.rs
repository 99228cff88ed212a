//! Operator routes and behaviour: readiness, metrics, request ids, graceful shutdown.

use std::time::{Duration, Instant};

use crate::support::*;

#[tokio::test]
async fn readiness_metrics_and_request_ids() {
    let s = Server::start().await;
    let (status, ready) = s.readyz().await;
    assert_eq!(status, 200, "{ready}");
    assert_eq!(ready["ok"], true);
    assert_eq!(ready["database"], "ok");
    assert_eq!(ready["sandbox"], "bubblewrap");
    let worlds: Vec<&str> = ready["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["world"].as_str().unwrap())
        .collect();
    assert_eq!(
        worlds,
        vec![
            "command-builder",
            "translator",
            "webhook-formatter",
            "recipe"
        ]
    );

    // A run answers with where its time went (`Server-Timing`, README "Operating it"): the
    // pipeline's stages in milliseconds, then the whole request's.
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let res = s
        .http()
        .post(s.url("/ffmpeg/process"))
        .header("Authorization", format!("Basic {ALICE}"))
        .json(&serde_json::json!({"task": {"inputs": [{"file_path": input}], "outputs": [{"file": "m.png", "options": ["-frames:v", "1"]}]}}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let timing = res.headers()["server-timing"].to_str().unwrap().to_string();
    let stages: Vec<(&str, f64)> = timing
        .split(", ")
        .map(|part| {
            let (name, dur) = part.split_once(";dur=").expect("name;dur=ms");
            (name, dur.parse().expect("milliseconds"))
        })
        .collect();
    let names: Vec<&str> = stages.iter().map(|(n, _)| *n).collect();
    for stage in [
        "auth", "resolve", "quota", "build", "ffmpeg", "register", "charge", "total",
    ] {
        assert!(names.contains(&stage), "{stage} in {timing}");
    }
    let (total, parts) = stages.split_last().unwrap();
    assert_eq!(total.0, "total", "{timing}");
    let ffmpeg = parts.iter().find(|(n, _)| *n == "ffmpeg").unwrap().1;
    let sum: f64 = parts.iter().map(|(_, ms)| ms).sum();
    assert!(ffmpeg > 0.0 && sum <= total.1 + 0.1, "{timing}");
    // Answers that ran no stage carry none.
    let res = s.http().get(s.url("/healthz")).send().await.unwrap();
    assert!(res.headers().get("server-timing").is_none());
    s.get("/directory", "wrong-key-000").await;

    let res = s
        .http()
        .get(s.url("/healthz"))
        .header("x-request-id", "trace-abc_123")
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["x-request-id"], "trace-abc_123");
    let res = s
        .http()
        .get(s.url("/healthz"))
        .header("x-request-id", "bad id with spaces")
        .send()
        .await
        .unwrap();
    let id = res.headers()["x-request-id"].to_str().unwrap().to_string();
    assert!(
        id.len() == 16 && id.bytes().all(|b| b.is_ascii_alphanumeric()),
        "{id}"
    );

    let text = s.metrics().await;
    for needle in [
        "mediaforge_http_requests_total{method=\"POST\",route=\"/ffmpeg/process\",status=\"200\"} 1",
        "mediaforge_http_requests_total{method=\"GET\",route=\"/directory\",status=\"401\"} 1",
        "mediaforge_process_seconds_count{program=\"ffmpeg\"} 1",
        "mediaforge_plugin_call_seconds_count{world=\"command-builder\"} 1",
        "mediaforge_oldest_pending_job_seconds 0",
    ] {
        assert!(text.contains(needle), "missing {needle}\n{text}");
    }
    assert!(
        s.log().contains("request_id"),
        "access log lines carry the request id"
    );
}

#[tokio::test]
async fn sigterm_stops_taking_work_and_exits() {
    let s = Server::start().await;
    let pid = s.pid();
    let started = Instant::now();
    std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    loop {
        let alive = std::path::Path::new(&format!("/proc/{pid}/status")).exists()
            && !std::fs::read_to_string(format!("/proc/{pid}/status"))
                .unwrap_or_default()
                .contains("State:\tZ");
        if !alive {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "server did not stop"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        s.log().contains("shutting down") && s.log().contains("stopped"),
        "{}",
        s.log()
    );
}

#[tokio::test]
async fn openapi_document_and_docs_ui() {
    let s = Server::start().await;
    let (status, doc) = s.call("GET", "/openapi.json", None, None).await;
    assert_eq!(status, 200);
    assert!(
        doc["openapi"].as_str().unwrap().starts_with("3.1"),
        "{}",
        doc["openapi"]
    );
    let paths = doc["paths"].as_object().unwrap();
    for (path, method) in [
        ("/directory", "post"),
        ("/directory", "get"),
        ("/directory/{dir_id}", "get"),
        ("/file", "post"),
        ("/file/{dir_id}/{file_name}", "get"),
        ("/file/{dir_id}/{file_name}", "delete"),
        ("/file/download/{dir_id}/{file_name}", "get"),
        ("/ffmpeg/process", "post"),
        ("/ffmpeg/process/async", "post"),
        ("/ffmpeg/validate", "post"),
        ("/ffmpeg/estimate", "post"),
        ("/jobs", "get"),
        ("/job/{job_id}", "get"),
        ("/job/{job_id}", "delete"),
        ("/ffprobe/analyze", "post"),
        ("/ai/ffmpeg/process", "post"),
        ("/ai/ffmpeg/process/async", "post"),
        ("/ai/ffprobe/analyze", "post"),
        ("/ffmpeg/run", "post"),
    ] {
        let op = &paths
            .get(path)
            .unwrap_or_else(|| panic!("{path} missing: {:?}", paths.keys()))[method];
        assert!(op.is_object(), "{method} {path}");
        assert!(
            op["responses"]["401"].is_object() || path == "/ffmpeg/run",
            "{method} {path} documents 401"
        );
        assert!(op["security"].is_array(), "{method} {path} needs the key");
    }
    assert!(paths["/ffmpeg/process"]["post"]["requestBody"].is_object());
    // Tenants' limits answer 429 on any authenticated route.
    assert!(paths["/ffmpeg/process"]["post"]["responses"]["429"].is_object());
    assert!(paths["/directory"]["get"]["responses"]["429"].is_object());
    // The tus routes, with the protocol's headers in and out and its own statuses.
    let header_names = |op: &serde_json::Value| -> Vec<String> {
        op["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["in"] == "header")
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    let tus = &paths["/tus"];
    assert!(
        header_names(&tus["post"]).contains(&"Upload-Length".to_string()),
        "{tus}"
    );
    assert!(tus["post"]["responses"]["201"]["headers"]["Location"].is_object());
    assert!(tus["options"]["responses"]["204"]["headers"]["Tus-Extension"].is_object());
    let upload = &paths["/tus/{tus_id}"];
    for method in ["head", "patch", "delete"] {
        assert!(upload[method]["security"].is_array(), "{method}: {upload}");
        assert!(
            header_names(&upload[method]).contains(&"Tus-Resumable".to_string()),
            "{method}"
        );
        assert!(upload[method]["responses"]["412"].is_object(), "{method}");
    }
    assert!(header_names(&upload["patch"]).contains(&"Upload-Offset".to_string()));
    assert!(
        upload["patch"]["requestBody"]["content"]["application/offset+octet-stream"].is_object()
    );
    for status in ["409", "415", "423", "460"] {
        let error = &upload["patch"]["responses"][status];
        assert!(error.to_string().contains("ErrorBody"), "{status}: {error}");
    }
    assert!(upload["head"]["responses"]["200"]["headers"]["Upload-Offset"].is_object());
    // The interface's version, not the server's.
    assert_eq!(doc["info"]["version"], "1.0.0", "{}", doc["info"]);
    // Handlers return the documented types, so each success names its schema.
    for (path, method, status, schema) in [
        ("/ffmpeg/process", "post", "200", "ProcessResponse"),
        ("/ffmpeg/validate", "post", "200", "ValidateResponse"),
        ("/ffmpeg/process/async", "post", "202", "Accepted"),
        ("/job/{job_id}", "get", "200", "JobView"),
        ("/usage", "get", "200", "UsageResponse"),
    ] {
        let response = &paths[path][method]["responses"][status];
        assert!(
            response.to_string().contains(schema),
            "{method} {path} {status}: {response}"
        );
    }
    assert!(
        doc["components"]["schemas"]["Task"].is_object(),
        "{}",
        doc["components"]["schemas"]
    );
    assert!(doc["components"]["securitySchemes"]["api_key"].is_object());
    let res = s.http().get(s.url("/docs/")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.text().await.unwrap().to_lowercase().contains("swagger"));
}

#[tokio::test]
async fn refused_uploads_always_get_their_answer() {
    let s = Server::start().await;
    let client = s.http().clone();
    // Four keep-alive connections, each sending refused bodies of 100 KB to 5 MB in turn.
    let mut workers = Vec::new();
    for w in 0..4u32 {
        let (client, base) = (client.clone(), s.url(""));
        workers.push(tokio::spawn(async move {
            for i in 0..13u32 {
                let size = 100_000 + ((w * 13 + i) as usize * 389_017) % 4_900_000;
                let (path, key) = if i % 3 == 0 {
                    ("/blob/xyz?exp=1&max=1&sig=bad".to_string(), None)
                } else {
                    ("/v1/ffmpeg/run".to_string(), Some("Basic wrong-key"))
                };
                let mut req = client
                    .request(
                        if key.is_some() {
                            reqwest::Method::POST
                        } else {
                            reqwest::Method::PUT
                        },
                        format!("{base}{path}"),
                    )
                    .header("content-type", "multipart/form-data; boundary=x")
                    .body(vec![b'x'; size]);
                if let Some(k) = key {
                    req = req.header("Authorization", k);
                }
                let res = req
                    .send()
                    .await
                    .unwrap_or_else(|e| panic!("{path} with {size} bytes: {e}"));
                let status = res.status().as_u16();
                let body: serde_json::Value = res.json().await.unwrap();
                assert_eq!(body["ok"], false, "{body}");
                match key {
                    Some(_) => assert_eq!(
                        (status, body["error"].as_str()),
                        (401, Some("Invalid API key"))
                    ),
                    None => assert_eq!(status, 403, "{body}"),
                }
            }
        }));
    }
    for w in workers {
        w.await.unwrap();
    }
}
