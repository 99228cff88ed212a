//! Directories, files, presigned URLs, auth, TTL and persistence, through the real binary.

use serde_json::json;

use crate::support::*;

#[tokio::test]
async fn health_needs_no_key_and_everything_else_does() {
    let s = Server::start().await;
    let (status, body) = s.call("GET", "/healthz", None, None).await;
    assert_eq!((status.as_u16(), body), (200, json!({"ok": true})));

    let routes = [
        ("GET", "/directory"),
        ("POST", "/directory"),
        ("GET", "/directory/abc"),
        ("POST", "/file"),
        ("GET", "/file/abc/x.mp4"),
        ("DELETE", "/file/abc/x.mp4"),
        ("GET", "/file/download/abc/x.mp4"),
        ("GET", "/v1/directory"),
    ];
    for (method, path) in routes {
        for key in [None, Some("wrong-key-000")] {
            let (status, body) = s.call(method, path, key, None).await;
            assert_eq!(status, 401, "{method} {path} {key:?}");
            assert_eq!(body, json!({"ok": false, "error": "Invalid API key"}));
        }
    }
}

#[tokio::test]
async fn key_schemes() {
    let s = Server::start().await;
    let b64 = base64_encode(&format!("{ALICE}:"));
    for header in [
        format!("Basic {ALICE}"),
        format!("bearer {ALICE}"),
        format!("BASIC {ALICE}"),
        format!("Basic {b64}"),
    ] {
        let res = s
            .http()
            .get(s.url("/directory"))
            .header("Authorization", &header)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{header}");
    }
    let res = s
        .http()
        .get(s.url("/directory"))
        .header("Authorization", format!("Token {ALICE}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
}

fn base64_encode(s: &str) -> String {
    const T: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let b = s.as_bytes();
    let mut out = String::new();
    for chunk in b.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &c)| acc | (c as u32) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[tokio::test]
async fn directories() {
    let s = Server::start().await;
    let (status, body) = s.post("/directory", ALICE, json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(body["ok"], true);
    assert_eq!(body["directory"]["ttl"], 86400);
    let id = body["directory"]["id"].as_str().unwrap().to_string();
    assert!(
        id.len() <= 64
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    );

    let (_, body) = s.post("/directory", ALICE, json!({"ttl": 604800})).await;
    assert_eq!(body["directory"]["ttl"], 604800);
    // An empty body is allowed: every field is optional.
    let res = s
        .http()
        .post(s.url("/directory"))
        .header("Authorization", format!("Basic {ALICE}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);

    for bad in [
        json!({"ttl": 604801}),
        json!({"ttl": 0}),
        json!({"ttl": -5}),
        json!({"ttl": 1.5}),
        json!({"ttl": "60"}),
    ] {
        let (status, body) = s.post("/directory", ALICE, bad.clone()).await;
        assert_eq!(status, 400, "{bad}");
        assert_eq!(body["ok"], false);
        assert!(body["error"].as_str().unwrap().contains("ttl"), "{body}");
    }
    let (status, body) = s.raw_post("/directory", ALICE, "{not json").await;
    assert_eq!(
        (status.as_u16(), body["error"].as_str().unwrap()),
        (400, "Invalid JSON in request body")
    );

    let (_, list) = s.get("/directory", ALICE).await;
    let dirs = list["directories"].as_array().unwrap();
    assert_eq!(dirs.len(), 3);
    assert!(
        dirs.iter()
            .all(|d| is_timestamp(&d["added_on"]) && d["ttl"].is_number())
    );
    // Bob sees none of Alice's directories, and may not list one.
    let (_, list) = s.get("/directory", BOB).await;
    assert_eq!(list["directories"], json!([]));
    let (status, body) = s.get(&format!("/directory/{id}"), BOB).await;
    assert_eq!(
        (status.as_u16(), body["error"].as_str().unwrap()),
        (403, "Unauthorized access to directory")
    );
    let (status, body) = s.get("/directory/doesnotexist", ALICE).await;
    assert_eq!(
        (status.as_u16(), body["error"].as_str().unwrap()),
        (404, "Directory not found")
    );
    let (status, body) = s.get(&format!("/v1/directory/{id}"), ALICE).await;
    assert_eq!(
        (status.as_u16(), body),
        (200, json!({"ok": true, "files": []}))
    );
}

#[tokio::test]
async fn file_lifecycle_with_presigned_urls() {
    let s = Server::start().await;
    let dir = s.mkdir(ALICE).await;
    let bytes: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let path = s
        .upload(ALICE, Some(&dir), "Clip One.mp4", bytes.clone())
        .await;
    assert_eq!(path, format!("{dir}/Clip One.mp4"));

    let (status, info) = s.get(&format!("/file/{dir}/Clip%20One.mp4"), ALICE).await;
    assert_eq!(status, 200);
    assert_eq!(
        info,
        json!({"ok": true, "file_info": {"file_path": path, "file_type": "video/mp4", "file_size": 300000}})
    );

    let (_, listing) = s.get(&format!("/directory/{dir}"), ALICE).await;
    assert_eq!(listing["files"].as_array().unwrap().len(), 1);
    assert_eq!(listing["files"][0]["file_name"], "Clip One.mp4");
    assert!(is_timestamp(&listing["files"][0]["added_on"]), "{listing}");

    let (status, dl) = s
        .get(&format!("/file/download/{dir}/Clip%20One.mp4"), ALICE)
        .await;
    assert_eq!(status, 200);
    assert_eq!(dl["download"]["method"], "GET");
    assert_eq!(dl["download"]["expiresInSeconds"], 300);
    assert_eq!(dl["download"]["file_size"], 300000);
    assert_eq!(dl["download"]["file_type"], "video/mp4");
    let url = dl["download"]["url"].as_str().unwrap();
    let res = s.http().get(url).send().await.unwrap();
    assert_eq!(res.headers()["content-type"], "video/mp4");
    let disposition = res.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        disposition.starts_with("attachment;")
            && disposition.contains("filename*=UTF-8''Clip%20One%2Emp4"),
        "{disposition}"
    );
    assert_eq!(res.bytes().await.unwrap().to_vec(), bytes);

    // A range request returns exactly that slice.
    let res = s
        .http()
        .get(url)
        .header("Range", "bytes=1000-1999")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 206);
    assert_eq!(
        res.bytes().await.unwrap().to_vec(),
        bytes[1000..2000].to_vec()
    );

    // Names are case-sensitive; the same name twice is a conflict.
    let (status, _) = s
        .post(
            "/file",
            ALICE,
            json!({"file_name": "clip one.mp4", "dir_id": dir}),
        )
        .await;
    assert_eq!(status, 200);
    let (status, body) = s
        .post(
            "/file",
            ALICE,
            json!({"file_name": "Clip One.mp4", "dir_id": dir}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["ok"], false);
    // The listing follows every change (it was read above, before this file existed).
    assert_eq!(
        s.file_names(ALICE, &dir).await,
        ["Clip One.mp4", "clip one.mp4"]
    );

    // Another account: 404 on file operations, 403 on POST /file into the directory.
    for p in [
        format!("/file/{dir}/Clip%20One.mp4"),
        format!("/file/download/{dir}/Clip%20One.mp4"),
    ] {
        let (status, _) = s.get(&p, BOB).await;
        assert_eq!(status, 404, "{p}");
    }
    let (status, _) = s.delete(&format!("/file/{dir}/Clip%20One.mp4"), BOB).await;
    assert_eq!(status, 404);
    let (status, body) = s
        .post("/file", BOB, json!({"file_name": "x.mp4", "dir_id": dir}))
        .await;
    assert_eq!(
        (status.as_u16(), body["error"].as_str().unwrap()),
        (403, "Unauthorized access to directory")
    );
    let (status, body) = s
        .post(
            "/file",
            ALICE,
            json!({"file_name": "x.mp4", "dir_id": "nosuchdir"}),
        )
        .await;
    assert_eq!(
        (status.as_u16(), body["error"].as_str().unwrap()),
        (404, "Directory not found")
    );

    let (status, body) = s
        .delete(&format!("/file/{dir}/Clip%20One.mp4"), ALICE)
        .await;
    assert_eq!(
        (status.as_u16(), body),
        (200, json!({"ok": true, "deleted": {"file_path": path}}))
    );
    let (status, _) = s.get(&format!("/file/{dir}/Clip%20One.mp4"), ALICE).await;
    assert_eq!(status, 404);
    assert_eq!(s.file_names(ALICE, &dir).await, ["clip one.mp4"]);
    // The old download URL no longer serves the bytes, and the bytes are gone from disk.
    assert_eq!(s.http().get(url).send().await.unwrap().status(), 404);
    assert_eq!(count_objects(&s), 0);
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`: one width for every timestamp the API shows.
fn is_timestamp(v: &serde_json::Value) -> bool {
    let t = v.as_str().unwrap_or("").as_bytes();
    t.len() == 24
        && t.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'.',
            23 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

pub fn count_objects(s: &Server) -> usize {
    walk(&s.dir.join("files/objects"))
}

fn walk(p: &std::path::Path) -> usize {
    std::fs::read_dir(p)
        .map(|rd| {
            rd.flatten()
                .map(|e| {
                    if e.path().is_dir() {
                        walk(&e.path())
                    } else {
                        1
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

#[tokio::test]
async fn implicit_directory_and_name_rules() {
    let s = Server::start().await;
    let (status, body) = s.post("/file", ALICE, json!({"file_name": "a.wav"})).await;
    assert_eq!(status, 200);
    let dir = body["file"]["dir_id"].as_str().unwrap();
    assert_eq!(body["upload"]["method"], "PUT");
    assert_eq!(body["upload"]["expiresInSeconds"], 3600);
    assert!(body["file"]["added_on"].is_string());
    let (_, list) = s.get("/directory", ALICE).await;
    assert_eq!(list["directories"][0]["id"], dir);
    assert_eq!(list["directories"][0]["ttl"], 86400);

    let long = "x".repeat(256);
    for bad in [
        json!({}),
        json!({"file_name": ""}),
        json!({"file_name": "a/b"}),
        json!({"file_name": "."}),
        json!({"file_name": ".."}),
        json!({"file_name": "a\u{0}b"}),
        json!({"file_name": "a\nb"}),
        json!({"file_name": long}),
        json!({"file_name": 5}),
    ] {
        let (status, body) = s.post("/file", ALICE, bad.clone()).await;
        assert_eq!(status, 400, "{bad} -> {body}");
        assert_eq!(body["ok"], false);
    }
    let (status, body) = s.raw_post("/file", ALICE, "").await;
    assert_eq!(
        (status.as_u16(), body["error"].as_str().unwrap()),
        (400, "Request body is required")
    );
}

#[tokio::test]
async fn tampered_expired_and_wrong_method_urls_are_refused() {
    let s = Server::start_with(Options {
        extra: "".into(),
        env: vec![("MEDIAFORGE__STORAGE__UPLOAD_URL_TTL_S".into(), "2".into())],
        ..Default::default()
    })
    .await;
    let (_, created) = s.post("/file", ALICE, json!({"file_name": "t.bin"})).await;
    let url = created["upload"]["url"].as_str().unwrap().to_string();
    let dir = created["file"]["dir_id"].as_str().unwrap().to_string();
    let sig_pos = url.find("sig=").unwrap() + 4;
    let mut flipped = url.clone().into_bytes();
    flipped[sig_pos] = if flipped[sig_pos] == b'A' { b'B' } else { b'A' };
    let tampered = [
        String::from_utf8(flipped).unwrap(),
        url.replace("max=209715200", "max=999999999999"),
        url.replace("exp=", "exp=9"),
        url.replace(
            &url[url.find("/blob/").unwrap() + 6..url.find('?').unwrap()],
            "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        ),
        format!("{url}&extra=1"),
        url.split('?').next().unwrap().to_string(),
    ];
    for bad in &tampered {
        let res = s.http().put(bad).body("x").send().await.unwrap();
        assert_eq!(res.status(), 403, "{bad}");
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["ok"], false);
    }
    // The upload URL cannot be used to download.
    let res = s.http().get(&url).send().await.unwrap();
    assert_eq!(res.status(), 403);
    tokio::time::sleep(std::time::Duration::from_millis(2200)).await;
    let res = s.http().put(&url).body("late").send().await.unwrap();
    assert_eq!(res.status(), 403);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["error"], "Upload URL has expired");
    let (_, info) = s.get(&format!("/file/{dir}/t.bin"), ALICE).await;
    assert_eq!(info["file_info"]["file_size"], 0);

    // A download URL can't upload.
    let path = s
        .upload(ALICE, Some(&dir), "ok.bin", b"12345".to_vec())
        .await;
    let (_, dl) = s.get(&format!("/file/download/{path}"), ALICE).await;
    let res = s
        .http()
        .put(dl["download"]["url"].as_str().unwrap())
        .body("evil")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    assert_eq!(s.download(ALICE, &path).await, b"12345");
}

#[tokio::test]
async fn oversize_upload_is_refused_and_keeps_nothing() {
    let s = Server::start().await;
    let (_, created) = s.post("/file", BOB, json!({"file_name": "big.bin"})).await;
    let url = created["upload"]["url"].as_str().unwrap();
    let dir = created["file"]["dir_id"].as_str().unwrap();
    // Bob's plan allows 1 MB. Announced size and a streamed body without a length both stop.
    let res = s
        .http()
        .put(url)
        .body(vec![0u8; 1_048_577])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(
        body["error"],
        "File 'big.bin' size (1 MB) exceeds plan (free) max file size limit of 1 MB."
    );
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        (0..40).map(|_| Ok(vec![1u8; 64 * 1024])).collect();
    let stream = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));
    let res = s.http().put(url).body(stream).send().await.unwrap();
    assert_eq!(res.status(), 403);
    let (_, info) = s.get(&format!("/file/{dir}/big.bin"), BOB).await;
    assert_eq!(info["file_info"]["file_size"], 0);
    let (status, _) = s.get(&format!("/file/download/{dir}/big.bin"), BOB).await;
    assert_eq!(status, 404);
    assert_eq!(count_objects(&s), 0);
    let tmp = std::fs::read_dir(s.dir.join("files/tmp")).unwrap().count();
    assert_eq!(tmp, 0, "no half-written upload is left behind");
    // Exactly at the limit is fine.
    let res = s
        .http()
        .put(url)
        .body(vec![7u8; 1_048_576])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
}

#[tokio::test]
async fn expired_directories_vanish_with_their_files() {
    let s = Server::start().await;
    let (_, body) = s.post("/directory", ALICE, json!({"ttl": 1})).await;
    let dir = body["directory"]["id"].as_str().unwrap().to_string();
    s.upload(ALICE, Some(&dir), "a.bin", vec![1; 1000]).await;
    let keep = s.mkdir(ALICE).await;
    s.upload(ALICE, Some(&keep), "b.bin", vec![2; 1000]).await;
    assert_eq!(count_objects(&s), 2);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (status, _) = s.get(&format!("/directory/{dir}"), ALICE).await;
    assert_eq!(status, 404, "invisible as soon as the TTL passes");
    let (status, _) = s.get(&format!("/file/{dir}/a.bin"), ALICE).await;
    assert_eq!(status, 404);
    // The sweeper (every second in tests) removes the bytes.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while count_objects(&s) != 1 {
        assert!(
            std::time::Instant::now() < deadline,
            "expired bytes were not swept"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let (_, list) = s.get("/directory", ALICE).await;
    assert_eq!(list["directories"].as_array().unwrap().len(), 1);
    assert_eq!(
        s.download(ALICE, &format!("{keep}/b.bin")).await,
        vec![2; 1000]
    );
}

#[tokio::test]
async fn data_survives_a_restart_on_disk() {
    let opts = || Options {
        disk_db: true,
        ..Default::default()
    };
    let mut s = Server::start_with(opts()).await;
    let dir = s.mkdir(ALICE).await;
    let path = s
        .upload(ALICE, Some(&dir), "keep.txt", b"persistent".to_vec())
        .await;
    let (_, created) = s
        .post(
            "/file",
            ALICE,
            json!({"file_name": "later.txt", "dir_id": dir}),
        )
        .await;
    let upload_url = created["upload"]["url"].as_str().unwrap().to_string();
    let data = s.kill();

    let s = Server::start_with(Options {
        dir: Some(data),
        ..opts()
    })
    .await;
    let (_, list) = s.get(&format!("/directory/{dir}"), ALICE).await;
    assert_eq!(list["files"].as_array().unwrap().len(), 2);
    assert_eq!(s.download(ALICE, &path).await, b"persistent");
    // URLs signed before the restart still verify: the key lives in the database. The port
    // changed, so reuse the path and query on the new address.
    let tail = &upload_url[upload_url.find("/blob/").unwrap()..];
    let res = s
        .http()
        .put(s.url(tail))
        .body("after restart")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(
        s.download(ALICE, &format!("{dir}/later.txt")).await,
        b"after restart"
    );
    let _ = std::fs::remove_dir_all(&s.dir);
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_json() {
    let s = Server::start().await;
    let (status, body) = s.get("/nothing/here", ALICE).await;
    assert_eq!(status, 404);
    assert_eq!(body["ok"], false);
    let (status, body) = s.call("PATCH", "/directory", Some(ALICE), None).await;
    assert_eq!(status, 405);
    assert_eq!(body["ok"], false);
}
