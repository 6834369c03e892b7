//! Everything a client can put on the control connection of `sbc-bench net server`, decoded
//! the way the server decodes it: cookie, length-prefixed parameters, state bytes,
//! length-prefixed results. Must return an error or a value, never panic, and never allocate
//! more than the caps allow.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sbc_bench::bench::net::proto;

fuzz_target!(|data: &[u8]| {
    let _ = proto::decode_client_transcript(data);
    let _ = proto::parse_params(data);
    let _ = proto::parse_results(data);
    let mut r = std::io::Cursor::new(data);
    if let Ok(body) = proto::read_frame(&mut r, proto::MAX_RESULTS_JSON) {
        assert!(body.len() <= proto::MAX_RESULTS_JSON);
    }
});
