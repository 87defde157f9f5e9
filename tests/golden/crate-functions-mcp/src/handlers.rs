//! Your tool handlers: mcpgen creates this file once and never overwrites it.
//!
//! Each tool without an HTTP binding is answered by the function of the same name below. Return
//! `Ok(value)` and the JSON value is the tool's result (an object becomes structured content;
//! `json!` builds one); return `Err(Error::new(message))` and the model sees a tool error (`?`
//! converts reqwest and serde_json errors too). The argument types are in `src/tools.rs`, which
//! mcpgen regenerates with the catalogue. This file builds on `mcpgen_runtime::ext` (see
//! mcpgen-runtime/src/ext.rs), which mcpgen keeps working across versions, and on those types.
//!
//! Example:
//!
//! ```ignore
//! use mcpgen_runtime::ext::json;
//!
//! pub async fn get_current_weather(args: GetCurrentWeatherArgs) -> Result<Value, Error> {
//!     Ok(json!({ "location": args.location, "temperature": 21, "unit": "celsius" }))
//! }
//! ```

use mcpgen_runtime::ext::{Error, Value};
use crate::tools::*;

/// Get the current weather in a given location
pub async fn get_current_weather(args: GetCurrentWeatherArgs) -> Result<Value, Error> {
    let _ = args;
    Err(Error::not_implemented("get_current_weather"))
}

/// Get the current local time in a given IANA timezone
pub async fn get_current_time(args: GetCurrentTimeArgs) -> Result<Value, Error> {
    let _ = args;
    Err(Error::not_implemented("get_current_time"))
}

/// Get an N-day weather forecast
pub async fn get_n_day_weather_forecast(
    args: GetNDayWeatherForecastArgs,
) -> Result<Value, Error> {
    let _ = args;
    Err(Error::not_implemented("get_n_day_weather_forecast"))
}

/// Send an email to one or more recipients
pub async fn send_email(args: SendEmailArgs) -> Result<Value, Error> {
    let _ = args;
    Err(Error::not_implemented("send_email"))
}

/// Tell a random joke. Takes no arguments.
pub async fn get_random_joke(args: GetRandomJokeArgs) -> Result<Value, Error> {
    let _ = args;
    Err(Error::not_implemented("get_random_joke"))
}

/// List all of the user's reminders
pub async fn list_reminders(args: ListRemindersArgs) -> Result<Value, Error> {
    let _ = args;
    Err(Error::not_implemented("list_reminders"))
}
