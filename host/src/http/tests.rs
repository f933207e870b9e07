use super::testserver::{Ftp, Http, Https};
use super::*;

fn limits() -> Limits {
    Limits {
        connect_timeout: Duration::from_secs(5),
        request_timeout: Duration::from_secs(20),
        ..Limits::default()
    }
}

#[test]
fn fetches_over_http_with_bounds() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("a.txt"), "hello\n").unwrap();
    std::fs::write(tmp.path().join("big"), vec![7u8; 300_000]).unwrap();
    let srv = Http::serve(tmp.path()).unwrap();
    let url = format!("{}/a.txt", srv.url());
    assert_eq!(fetch_bytes(&url, &limits()).unwrap(), b"hello\n");
    let dest = tmp.path().join("out/sub/a");
    assert_eq!(fetch_to(&url, &dest, &limits()).unwrap(), 6);
    assert_eq!(std::fs::read(&dest).unwrap(), b"hello\n");
    assert!(exists(&url, &limits()));
    let missing = format!("{}/nope", srv.url());
    assert!(!exists(&missing, &limits()));
    assert_eq!(
        fetch_bytes(&missing, &limits()).unwrap_err().to_string(),
        "HTTP 404: Not Found"
    );
    // Larger than allowed: refused, and no partial file left behind.
    let small = Limits {
        max_body: 1000,
        ..limits()
    };
    let big = format!("{}/big", srv.url());
    let dest = tmp.path().join("big.out");
    assert!(matches!(
        fetch_to(&big, &dest, &small),
        Err(HttpError::TooLarge { limit: 1000, .. })
    ));
    assert!(!dest.exists() && !tmp.path().join("big.out.part").exists());
    assert!(matches!(
        fetch_bytes(&big, &small),
        Err(HttpError::TooLarge { .. })
    ));
}

#[test]
fn refuses_what_it_cannot_fetch() {
    assert!(matches!(
        fetch_bytes("s3://bucket/x", &limits()),
        Err(HttpError::Unsupported { .. })
    ));
    // Nothing listens on port 1.
    let e = fetch_bytes("http://127.0.0.1:1/x", &limits()).unwrap_err();
    assert_eq!(e.to_string(), "[Errno 111] Connection refused");
}

#[test]
fn https_verifies_certificates() {
    let tmp = tempfile::tempdir().unwrap();
    let www = tmp.path().join("www");
    std::fs::create_dir_all(&www).unwrap();
    std::fs::write(www.join("a.txt"), "secret\n").unwrap();
    let Some(srv) = Https::serve(&www, &tmp.path().join("tls")) else {
        eprintln!("skipped: openssl cannot serve https here");
        return;
    };
    let url = format!("{}/a.txt", srv.url());
    // Self-signed, not trusted: refused.
    let e = fetch_bytes(&url, &limits()).unwrap_err();
    assert!(matches!(e, HttpError::Transport(_)), "{e}");
    assert!(e.to_string().to_lowercase().contains("certificate"), "{e}");
    // Trusted through the CA bundle: fetched.
    let trusted = Limits {
        ca_bundle: Some(srv.cert.clone()),
        ..limits()
    };
    assert_eq!(fetch_bytes(&url, &trusted).unwrap(), b"secret\n");
    // verify_ssl False: fetched without checking.
    let unchecked = Limits {
        verify_tls: false,
        ..limits()
    };
    assert_eq!(fetch_bytes(&url, &unchecked).unwrap(), b"secret\n");
}

/// ftp:// as Salt's ftplib fetches it: anonymous, passive, bounded; its
/// failures in Salt's words with the server's reply.
#[test]
fn fetches_over_ftp_with_bounds() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("d")).unwrap();
    std::fs::write(tmp.path().join("d/a.txt"), "over ftp\n").unwrap();
    std::fs::write(tmp.path().join("big"), vec![7u8; 300_000]).unwrap();
    let srv = Ftp::serve(tmp.path()).unwrap();
    let url = format!("{}/d/a.txt", srv.url());
    assert_eq!(fetch_bytes(&url, &limits()).unwrap(), b"over ftp\n");
    let dest = tmp.path().join("out/a.txt");
    assert_eq!(fetch_to(&url, &dest, &limits()).unwrap(), 9);
    assert_eq!(std::fs::read(&dest).unwrap(), b"over ftp\n");
    assert!(exists(&url, &limits()));
    let missing = format!("{}/nope", srv.url());
    assert!(!exists(&missing, &limits()));
    assert_eq!(
        fetch_bytes(&missing, &limits()).unwrap_err().to_string(),
        format!(
            "Could not retrieve {missing} from FTP server. Exception: 550 Failed to open file."
        )
    );
    let small = Limits {
        max_body: 1000,
        ..limits()
    };
    let big = format!("{}/big", srv.url());
    assert!(matches!(
        fetch_to(&big, &tmp.path().join("big.out"), &small),
        Err(HttpError::TooLarge { limit: 1000, .. })
    ));
    // As Salt's: the destination is opened before the transfer.
    let refused = tmp.path().join("nope.out");
    assert!(fetch_to(&missing, &refused, &limits()).is_err());
    assert_eq!(std::fs::read(&refused).unwrap(), b"");
    let user = format!("ftp://bob:pw@127.0.0.1:{}/d/a.txt", srv.port);
    assert!(fetch_bytes(&user, &limits())
        .unwrap_err()
        .to_string()
        .ends_with("Exception: 530 This FTP server is anonymous only."));
    let e = fetch_bytes("ftp://127.0.0.1:1/x", &limits()).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("Exception: [Errno 111] Connection refused"),
        "{e}"
    );
}
