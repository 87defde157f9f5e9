//! What an operation's successful response looks like and how large it is: a sample value (the
//! declared example, else one made from the schema, with its list filled to the API's default
//! page size) and its size as the engine would send it ([`estimate`]).

pub mod estimate;
pub mod sample;
