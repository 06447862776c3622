//! Generates the Rookery protocol code from `proto/` at build time (prost + tonic).
//!
//! `protoc` comes from the `protoc-bin-vendored` crate unless the `PROTOC` environment variable
//! names one (e.g. Debian's `/usr/bin/protoc`). `ROOKERY_PROTO_DIR` overrides where the contract
//! lives (default: the crate's `proto/`, in the repository a link to its `proto/` folder, which
//! `cargo package` copies into the crate, so that a packaged crate needs no checkout).
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let proto_dir = match std::env::var_os("ROOKERY_PROTO_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => manifest.join("proto"),
    };
    let proto_dir = proto_dir
        .canonicalize()
        .map_err(|e| format!("the proto directory {} is missing: {e}", proto_dir.display()))?;
    println!("cargo:rerun-if-env-changed=ROOKERY_PROTO_DIR");
    println!("cargo:rerun-if-env-changed=PROTOC");
    println!("cargo:rerun-if-changed={}", proto_dir.join("rookery/v1").display());

    if std::env::var_os("PROTOC").is_none() {
        // SAFETY: build scripts are single-threaded.
        unsafe { std::env::set_var("PROTOC", protoc_bin_vendored::protoc_bin_path()?) };
    }
    let well_known = protoc_bin_vendored::include_path()?;
    let files: Vec<PathBuf> = ["bot_service.proto"]
        .iter()
        .map(|f| proto_dir.join("rookery/v1").join(f))
        .collect();
    tonic_prost_build::configure()
        .build_server(false)
        .compile_protos(&files, &[proto_dir, well_known])?;
    Ok(())
}
