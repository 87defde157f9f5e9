//! `jsonwebtoken`'s signature checks done by `ring`, which the server already links for TLS.
//!
//! `jsonwebtoken` leaves the crypto to a provider: its own two are aws-lc-rs (a C library built
//! from source) and RustCrypto (rsa, p256, p384, ed25519-dalek, ...), either of which would add
//! more build time than the rest of the OAuth support. This provider hands each check to `ring`'s
//! verification functions; no cryptography is written here. It verifies only: the server never
//! signs tokens, and HMAC (`HS*`) is refused outright, so a public key can never be used as a
//! shared secret whatever a token's header says. RSA keys under 2048 bits are refused (ring's
//! `*_2048_8192_*` parameters).

use jsonwebtoken::crypto::{CryptoProvider, JwtSigner, JwtVerifier, KeyUtils};
use jsonwebtoken::errors::{Error, ErrorKind, Result};
use jsonwebtoken::jwk::{EllipticCurve, ThumbprintHash};
use jsonwebtoken::signature::{self, Verifier};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, DecodingKeyKind, EncodingKey};
use ring::signature as rs;

/// Makes this provider `jsonwebtoken`'s for the process (once; later calls do nothing).
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Fails only when a provider is already installed, which then does the checks.
        let _ = PROVIDER.install_default();
    });
}

/// The provider: verification through `ring`, no signing, no HMAC.
static PROVIDER: CryptoProvider = CryptoProvider {
    signer_factory: no_signer,
    verifier_factory: verifier,
    key_utils: KeyUtils {
        rsa_pub_components_from_private_key: |_| Err(unsupported()),
        rsa_pub_components_from_public_key: |_| Err(unsupported()),
        ec_pub_components_from_private_key: |_, _| Err(unsupported()),
        ed_pub_components_from_private_key: |_: &[u8], _: &EllipticCurve| Err(unsupported()),
        compute_digest,
    },
};

fn unsupported() -> Error {
    ErrorKind::InvalidAlgorithm.into()
}

fn no_signer(_: &Algorithm, _: &EncodingKey) -> Result<Box<dyn JwtSigner>> {
    Err(unsupported())
}

fn compute_digest(data: &[u8], hash: ThumbprintHash) -> Result<Vec<u8>> {
    let algorithm = match hash {
        ThumbprintHash::SHA256 => &ring::digest::SHA256,
        ThumbprintHash::SHA384 => &ring::digest::SHA384,
        ThumbprintHash::SHA512 => &ring::digest::SHA512,
        _ => return Err(unsupported()),
    };
    Ok(ring::digest::digest(algorithm, data).as_ref().to_vec())
}

/// The ring algorithm for a JWS algorithm, and the key family it needs; `None` for HMAC and
/// anything unknown.
fn ring_algorithm(alg: Algorithm) -> Option<(&'static dyn rs::VerificationAlgorithm, AlgorithmFamily)> {
    Some(match alg {
        Algorithm::RS256 => (&rs::RSA_PKCS1_2048_8192_SHA256, AlgorithmFamily::Rsa),
        Algorithm::RS384 => (&rs::RSA_PKCS1_2048_8192_SHA384, AlgorithmFamily::Rsa),
        Algorithm::RS512 => (&rs::RSA_PKCS1_2048_8192_SHA512, AlgorithmFamily::Rsa),
        Algorithm::PS256 => (&rs::RSA_PSS_2048_8192_SHA256, AlgorithmFamily::Rsa),
        Algorithm::PS384 => (&rs::RSA_PSS_2048_8192_SHA384, AlgorithmFamily::Rsa),
        Algorithm::PS512 => (&rs::RSA_PSS_2048_8192_SHA512, AlgorithmFamily::Rsa),
        Algorithm::ES256 => (&rs::ECDSA_P256_SHA256_FIXED, AlgorithmFamily::Ec),
        Algorithm::ES384 => (&rs::ECDSA_P384_SHA384_FIXED, AlgorithmFamily::Ec),
        Algorithm::EdDSA => (&rs::ED25519, AlgorithmFamily::Ed),
        _ => return None,
    })
}

fn verifier(alg: &Algorithm, key: &DecodingKey) -> Result<Box<dyn JwtVerifier>> {
    let (ring_alg, family) = ring_algorithm(*alg).ok_or_else(unsupported)?;
    if key.family() != family {
        return Err(ErrorKind::InvalidKeyFormat.into());
    }
    Ok(Box::new(RingVerifier { alg: *alg, ring_alg, key: key.clone() }))
}

struct RingVerifier {
    alg: Algorithm,
    ring_alg: &'static dyn rs::VerificationAlgorithm,
    key: DecodingKey,
}

impl Verifier<Vec<u8>> for RingVerifier {
    fn verify(&self, msg: &[u8], sig: &Vec<u8>) -> std::result::Result<(), signature::Error> {
        let checked = match self.key.kind() {
            // An EC point (0x04 || x || y), an Ed25519 key, or an RSA public key in DER.
            DecodingKeyKind::SecretOrDer(bytes) => rs::UnparsedPublicKey::new(self.ring_alg, bytes).verify(msg, sig),
            DecodingKeyKind::RsaModulusExponent { n, e } => {
                let params = rsa_params(self.alg).ok_or_else(signature::Error::new)?;
                rs::RsaPublicKeyComponents { n, e }.verify(params, msg, sig)
            }
        };
        checked.map_err(|_| signature::Error::new())
    }
}

impl JwtVerifier for RingVerifier {
    fn algorithm(&self) -> Algorithm {
        self.alg
    }
}

fn rsa_params(alg: Algorithm) -> Option<&'static rs::RsaParameters> {
    Some(match alg {
        Algorithm::RS256 => &rs::RSA_PKCS1_2048_8192_SHA256,
        Algorithm::RS384 => &rs::RSA_PKCS1_2048_8192_SHA384,
        Algorithm::RS512 => &rs::RSA_PKCS1_2048_8192_SHA512,
        Algorithm::PS256 => &rs::RSA_PSS_2048_8192_SHA256,
        Algorithm::PS384 => &rs::RSA_PSS_2048_8192_SHA384,
        Algorithm::PS512 => &rs::RSA_PSS_2048_8192_SHA512,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_is_never_verified() {
        install();
        let key = DecodingKey::from_secret(b"a public key used as a secret");
        for alg in [Algorithm::HS256, Algorithm::HS384, Algorithm::HS512] {
            assert!(verifier(&alg, &key).is_err(), "{alg:?}");
        }
    }

    #[test]
    fn key_family_must_match_the_algorithm() {
        let ec = DecodingKey::from_ec_der(&[4; 65]);
        assert!(verifier(&Algorithm::RS256, &ec).is_err());
        assert!(verifier(&Algorithm::ES256, &ec).is_ok());
    }
}
