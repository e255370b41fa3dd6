//! GitHub pagination: follow `Link: <…>; rel="next"` until it is absent.
//!
//! GitHub's guidance is to follow the links rather than build page URLs. A next link must stay
//! on the API's own origin: the token goes with every request, so a link to another host is
//! refused rather than followed.

use reqwest::header::HeaderMap;
use url::Url;

/// The `rel="next"` URL of a response, if any. `Err` carries a reason for a link that exists
/// but cannot be followed (malformed, or another origin than `base`).
pub(crate) fn next_link(headers: &HeaderMap, base: &Url) -> Result<Option<Url>, String> {
    let Some(raw) = headers.get(reqwest::header::LINK) else {
        return Ok(None);
    };
    let raw = raw
        .to_str()
        .map_err(|_| "the Link header is not text".to_owned())?;
    let links = parse_link_header::parse_with_rel(raw)
        .map_err(|e| format!("malformed Link header `{raw}`: {e:?}"))?;
    let Some(next) = links.get("next") else {
        return Ok(None);
    };
    let url = base
        .join(&next.raw_uri)
        .map_err(|e| format!("bad next link `{}`: {e}", next.raw_uri))?;
    if url.origin() != base.origin() {
        return Err(format!(
            "next link `{url}` leaves the API at `{}`; refusing to send the token there",
            base.origin().ascii_serialization()
        ));
    }
    Ok(Some(url))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn h(v: &str) -> HeaderMap {
        let mut m = HeaderMap::new();
        m.insert(reqwest::header::LINK, HeaderValue::from_str(v).unwrap());
        m
    }

    #[test]
    fn follows_next_and_stops_without_it() {
        let base = Url::parse("https://api.github.com/").unwrap();
        let links = h(
            "<https://api.github.com/orgs/a/actions/runners?per_page=100&page=2>; rel=\"next\", \
             <https://api.github.com/orgs/a/actions/runners?per_page=100&page=5>; rel=\"last\"",
        );
        assert_eq!(
            next_link(&links, &base).unwrap().unwrap().as_str(),
            "https://api.github.com/orgs/a/actions/runners?per_page=100&page=2"
        );
        let last = h(
            "<https://api.github.com/x?page=1>; rel=\"first\", <https://api.github.com/x?page=4>; rel=\"prev\"",
        );
        assert_eq!(next_link(&last, &base).unwrap(), None);
        assert_eq!(next_link(&HeaderMap::new(), &base).unwrap(), None);
    }

    #[test]
    fn refuses_other_origins_and_garbage() {
        let base = Url::parse("http://127.0.0.1:8080/api/v3/").unwrap();
        assert!(next_link(&h("<http://evil.example/x?page=2>; rel=\"next\""), &base).is_err());
        assert!(next_link(&h("<http://127.0.0.1:9999/x?page=2>; rel=\"next\""), &base).is_err());
        assert!(next_link(&h("garbage"), &base).is_err());
        let ok = h("<http://127.0.0.1:8080/api/v3/x?page=2>; rel=\"next\"");
        assert!(next_link(&ok, &base).unwrap().is_some());
    }
}
