//! A report for each API of what `crate::merge::open` made of the inputs: an API
//! description's pipeline, a runtime config, or several APIs merged into one config.

use super::{About, ApiReport, Context, examine};
use crate::pipeline::Pipeline;
use mcpgen_config::RuntimeConfig;

/// What a config's report calls its input.
const CONFIG_DIALECT: &str = "mcpgen runtime config";

/// The report of an API description (every check).
pub(crate) fn of_pipeline(p: &Pipeline) -> ApiReport {
    let about = About {
        name: p.ir.info.title.clone(),
        title: p.ir.info.title.clone(),
        version: p.ir.info.version.clone(),
        source: p.origin.clone(),
        dialect: p.ir.dialect.label().to_string(),
    };
    examine(&Context::of_pipeline(p), about)
}

/// The report of a runtime config given as it is (the checks that need only tools).
pub(crate) fn of_config(config: &RuntimeConfig, origin: &str) -> ApiReport {
    let server = &config.server;
    let title = server.title.clone().unwrap_or_else(|| server.name.clone());
    let about = About {
        name: title.clone(),
        title,
        version: server.version.clone(),
        source: origin.to_string(),
        dialect: CONFIG_DIALECT.to_string(),
    };
    examine(&Context::of_config(config, None), about)
}

/// The reports of several APIs merged into `config`: those of the API descriptions among them
/// (`made`, from their pipelines, in order), named by their keys in the config; and for each API
/// of the config none of those is (a runtime config among the inputs), the report of its tools,
/// with pointers into the merged config (what `mcpgen config` writes for the same inputs).
pub(crate) fn of_merged(config: &RuntimeConfig, origin: &str, made: Vec<ApiReport>) -> Vec<ApiReport> {
    let mut claimed = vec![false; config.apis.len()];
    let mut reports = Vec::with_capacity(config.apis.len());
    for mut report in made {
        let title = |a: &mcpgen_config::Api| a.title.clone().unwrap_or_else(|| a.name.clone());
        let found = config.apis.iter().enumerate().find(|(i, a)| !claimed[*i] && title(a) == report.title);
        if let Some((i, api)) = found {
            claimed[i] = true;
            rename(&mut report, &api.name);
        }
        reports.push(report);
    }
    for (api, _) in config.apis.iter().zip(&claimed).filter(|(_, claimed)| !**claimed) {
        let about = About {
            name: api.name.clone(),
            title: api.title.clone().unwrap_or_else(|| api.name.clone()),
            version: api.version.clone().unwrap_or_default(),
            source: origin.to_string(),
            dialect: CONFIG_DIALECT.to_string(),
        };
        reports.push(examine(&Context::of_config(config, Some(&api.name)), about));
    }
    reports
}

fn rename(report: &mut ApiReport, name: &str) {
    report.name = name.to_string();
    for f in &mut report.findings {
        f.api = name.to_string();
    }
}
