//! End to end: the rmcp client drives `mcpgen serve` over stdio and Streamable HTTP against a
//! recording mock upstream; every parameter style, body type and auth scheme is checked at the
//! byte level of what the upstream received. The same checks run against a generated crate in
//! tests/generate.rs.

mod common;

use common::checks::{self, Subject};
use common::*;

macro_rules! e2e {
    ($($name:ident => $check:ident),* $(,)?) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let mock = start_mock().await;
            let spec = e2e_spec(&mock);
            checks::$check(&Subject::Serve(spec.to_path_buf()), &mock).await;
        }
    )*};
}

e2e! {
    parameters_reach_the_upstream_exactly => parameters,
    bodies_reach_the_upstream_exactly => bodies,
    auth_schemes_use_env_credentials => auth,
    responses_become_results => responses,
    upstream_faults_leave_the_server_serving => faults,
    unknown_tools_are_protocol_errors_and_lists_are_stable => lists,
    redirects_stay_on_the_same_origin => redirects,
    discovery_search_describe_call => discovery,
    auto_mode_switches_at_its_limits => discovery_threshold,
    optional_nulls_are_left_out => nulls,
}
