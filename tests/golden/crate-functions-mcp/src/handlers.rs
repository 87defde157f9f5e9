//! Your tool handlers: mcpgen creates this file once and never overwrites it.
//!
//! Each tool without an HTTP binding is answered by the function of the same name below. Return
//! `Ok(value)` and the JSON value is the tool's result (an object becomes structured content;
//! `serde_json::json!` builds one); return `Err(message)` and the model sees a tool error. The
//! argument types are in `src/tools.rs`, which mcpgen regenerates with the catalogue.
//!
//! Example:
//!
//! ```ignore
//! pub async fn get_current_weather(args: GetCurrentWeatherArgs) -> Result<Value, String> {
//!     Ok(serde_json::json!({ "location": args.location, "temperature": 21, "unit": "celsius" }))
//! }
//! ```

use serde_json::Value;
use crate::runtime::hooks::not_implemented;
use crate::tools::*;

/// Get the current weather in a given location
pub async fn get_current_weather(args: GetCurrentWeatherArgs) -> Result<Value, String> {
    let _ = args;
    Err(not_implemented("get_current_weather"))
}

/// Get the current local time in a given IANA timezone
pub async fn get_current_time(args: GetCurrentTimeArgs) -> Result<Value, String> {
    let _ = args;
    Err(not_implemented("get_current_time"))
}

/// Get an N-day weather forecast
pub async fn get_n_day_weather_forecast(
    args: GetNDayWeatherForecastArgs,
) -> Result<Value, String> {
    let _ = args;
    Err(not_implemented("get_n_day_weather_forecast"))
}

/// Send an email to one or more recipients
pub async fn send_email(args: SendEmailArgs) -> Result<Value, String> {
    let _ = args;
    Err(not_implemented("send_email"))
}

/// Tell a random joke. Takes no arguments.
pub async fn get_random_joke(args: GetRandomJokeArgs) -> Result<Value, String> {
    let _ = args;
    Err(not_implemented("get_random_joke"))
}

/// List all of the user's reminders
pub async fn list_reminders(args: ListRemindersArgs) -> Result<Value, String> {
    let _ = args;
    Err(not_implemented("list_reminders"))
}
