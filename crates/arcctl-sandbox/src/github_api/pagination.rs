//! Page-number pagination as GitHub's runner endpoints do it: `per_page` (default 30, capped at
//! 100) and `page` (from 1), and a `Link` header of absolute URLs with `per_page` included.

use axum::http::HeaderMap;
use axum::response::Response;

use super::errors;

const DEFAULT_PER_PAGE: usize = 30;
const MAX_PER_PAGE: usize = 100;

/// The page a list request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Page {
    pub(crate) per_page: usize,
    pub(crate) page: usize,
    /// The other query parameters, kept in order for the `Link` URLs.
    rest: Vec<(String, String)>,
}

impl Page {
    /// Parses `per_page` and `page` from the raw query; a non-integer value is a 422.
    pub(crate) fn parse(
        query: Option<&str>,
        documentation_url: &str,
    ) -> Result<Page, Box<Response>> {
        let mut page = Page {
            per_page: DEFAULT_PER_PAGE,
            page: 1,
            rest: Vec::new(),
        };
        let pairs = url::form_urlencoded::parse(query.unwrap_or_default().as_bytes());
        for (key, value) in pairs {
            match key.as_ref() {
                "per_page" => {
                    let n = integer("per_page", &value, documentation_url)?;
                    page.per_page = if n < 1 {
                        DEFAULT_PER_PAGE
                    } else {
                        usize::try_from(n).unwrap_or(MAX_PER_PAGE).min(MAX_PER_PAGE)
                    };
                }
                "page" => {
                    let n = integer("page", &value, documentation_url)?;
                    page.page = usize::try_from(n.max(1)).unwrap_or(usize::MAX);
                }
                _ => page.rest.push((key.into_owned(), value.into_owned())),
            }
        }
        Ok(page)
    }

    /// The value of query parameter `key` other than the pagination ones.
    pub(crate) fn param(&self, key: &str) -> Option<&str> {
        self.rest
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// This page's share of `items`.
    pub(crate) fn slice<'a, T>(&self, items: &'a [T]) -> &'a [T] {
        let start = self
            .page
            .saturating_sub(1)
            .saturating_mul(self.per_page)
            .min(items.len());
        let end = start.saturating_add(self.per_page).min(items.len());
        &items[start..end]
    }

    /// The `Link` header for `total` items, or `None` when everything fits on this one page.
    pub(crate) fn link(&self, headers: &HeaderMap, path: &str, total: usize) -> Option<String> {
        let last = total.div_ceil(self.per_page).max(1);
        if last == 1 && self.page == 1 {
            return None;
        }
        let host = headers
            .get(axum::http::header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("127.0.0.1");
        let url = |page: usize| {
            let mut query = url::form_urlencoded::Serializer::new(String::new());
            for (k, v) in &self.rest {
                query.append_pair(k, v);
            }
            query.append_pair("per_page", &self.per_page.to_string());
            query.append_pair("page", &page.to_string());
            format!("<http://{host}{path}?{}>", query.finish())
        };
        let mut links = Vec::new();
        if self.page > 1 {
            links.push(format!(
                "{}; rel=\"prev\"",
                url(self.page.min(last + 1) - 1)
            ));
        }
        if self.page < last {
            links.push(format!("{}; rel=\"next\"", url(self.page + 1)));
            links.push(format!("{}; rel=\"last\"", url(last)));
        }
        if self.page > 1 {
            links.push(format!("{}; rel=\"first\"", url(1)));
        }
        Some(links.join(", "))
    }
}

fn integer(param: &str, value: &str, documentation_url: &str) -> Result<i64, Box<Response>> {
    value
        .trim()
        .parse::<i64>()
        .map_err(|_| Box::new(errors::not_an_integer(param, value, documentation_url)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers() -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            axum::http::header::HOST,
            axum::http::HeaderValue::from_static("127.0.0.1:8080"),
        );
        h
    }

    #[test]
    fn defaults_caps_and_rejects() {
        let p = Page::parse(None, "d").unwrap_or_else(|_| panic!("parse"));
        assert_eq!((p.per_page, p.page), (30, 1));
        let p = Page::parse(Some("per_page=250&page=0&name=x"), "d")
            .unwrap_or_else(|_| panic!("parse"));
        assert_eq!((p.per_page, p.page, p.param("name")), (100, 1, Some("x")));
        assert!(Page::parse(Some("per_page=abc"), "d").is_err());
        assert!(Page::parse(Some("page=1.5"), "d").is_err());
    }

    #[test]
    fn links_on_first_middle_last_and_single_page() {
        let path = "/orgs/acme/actions/runners";
        let p = Page::parse(Some("name=a%20b&per_page=100&page=2"), "d")
            .unwrap_or_else(|_| panic!("parse"));
        assert_eq!(
            p.link(&headers(), path, 250).as_deref(),
            Some(
                "<http://127.0.0.1:8080/orgs/acme/actions/runners?name=a+b&per_page=100&page=1>; rel=\"prev\", \
                 <http://127.0.0.1:8080/orgs/acme/actions/runners?name=a+b&per_page=100&page=3>; rel=\"next\", \
                 <http://127.0.0.1:8080/orgs/acme/actions/runners?name=a+b&per_page=100&page=3>; rel=\"last\", \
                 <http://127.0.0.1:8080/orgs/acme/actions/runners?name=a+b&per_page=100&page=1>; rel=\"first\""
            )
        );
        let first = Page::parse(None, "d").unwrap_or_else(|_| panic!("parse"));
        let link = first.link(&headers(), path, 31).unwrap_or_default();
        assert!(link.contains("page=2>; rel=\"next\"") && !link.contains("prev"));
        assert_eq!(first.link(&headers(), path, 30), None);
        assert_eq!(first.slice(&[1, 2, 3]), &[1, 2, 3]);
        let far = Page::parse(Some("page=9"), "d").unwrap_or_else(|_| panic!("parse"));
        assert!(far.slice(&[1, 2, 3]).is_empty());
        assert!(
            far.link(&headers(), path, 3)
                .is_some_and(|l| l.contains("page=1>; rel=\"prev\""))
        );
    }
}
