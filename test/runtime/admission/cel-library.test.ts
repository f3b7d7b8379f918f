/**
 * The API server's CEL libraries as the test kit defines them: each expression below must evaluate to
 * true (given/want by construction), the examples of the Kubernetes documentation's library tables
 * among them; and the failures the libraries answer with an error.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { celEnvironment, celSource } from '../../../src/runtime/admission/cel-library.js';

const TRUE: Record<string, string[]> = {
  lists: [
    '[1, 2, 3].isSorted() && ![2, 1].isSorted() && ["a", "b"].isSorted()',
    '[1, 2, 3].sum() == 6 && [1.5, 2.5].sum() == 4.0 && [].sum() == 0',
    '[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3',
    '[1, 2, 2, 3].indexOf(2) == 1 && [1, 2, 2, 3].lastIndexOf(2) == 2 && [1].indexOf(5) == -1',
  ],
  regex: [
    '"abc 123".find("[0-9]+") == "123" && "abc".find("x") == ""',
    '"123 abc 456".findAll("[0-9]+") == ["123", "456"] && "123 abc 456".findAll("[0-9]+", 1) == ["123"]',
    '"abc".matches("^a.c$")',
  ],
  strings: [
    '"hello".charAt(1) == "e" && "hello".charAt(5) == ""',
    '"a.b.c".replace(".", "/") == "a/b/c" && "a.b.c".replace(".", "/", 1) == "a/b.c"',
    '"abc".reverse() == "cba" && "ab".lowerAscii() == "ab" && " a ".trim() == "a"',
    'strings.quote("a\\nb") == "\\"a\\\\nb\\""',
    '"%s has %d items, %.2f%%".format(["x", 3, 12.345]) == "x has 3 items, 12.35%"',
    '"%x".format([255]) == "ff" && "%b".format([5]) == "101" && "%o".format([8]) == "10"',
    '["a", "b"].join("-") == "a-b"',
  ],
  urls: [
    'isURL("https://example.com:8443/a/b?x=1&x=2") && !isURL("example.com") && isURL("/relative/path")',
    'url("https://example.com:8443/a/b?x=1&x=2").getScheme() == "https"',
    'url("https://example.com:8443/a").getHost() == "example.com:8443" && url("https://example.com:8443/a").getHostname() == "example.com"',
    'url("https://[::1]:80/").getHostname() == "::1" && url("https://[::1]:80/").getPort() == "80"',
    'url("https://example.com/a%20b").getEscapedPath() == "/a%20b" && url("https://x/?k=v&k=w").getQuery() == {"k": ["v", "w"]}',
  ],
  ip: [
    'isIP("10.0.0.1") && isIP("fe80::1") && !isIP("10.0.0.256") && !isIP("::ffff:1.2.3.4") && !isIP("fe80::1%eth0")',
    'ip("10.0.0.1").family() == 4 && ip("::1").family() == 6',
    'ip("127.0.0.1").isLoopback() && ip("::1").isLoopback() && ip("0.0.0.0").isUnspecified()',
    'ip("169.254.1.1").isLinkLocalUnicast() && ip("fe80::1").isLinkLocalUnicast() && ip("224.0.0.1").isLinkLocalMulticast()',
    'ip("8.8.8.8").isGlobalUnicast() && !ip("127.0.0.1").isGlobalUnicast() && ip("2001:db8::1").isGlobalUnicast()',
    'ip.isCanonical("2001:db8::1") && !ip.isCanonical("2001:DB8::1") && !ip.isCanonical("2001:db8:0:0:0:0:0:1")',
    'string(ip("2001:db8:0:0:1:0:0:1")) == "2001:db8::1:0:0:1"',
  ],
  cidr: [
    'isCIDR("10.0.0.0/8") && !isCIDR("10.0.0.0/33") && !isCIDR("10.0.0.0")',
    'cidr("10.0.0.0/8").containsIP("10.1.2.3") && !cidr("10.0.0.0/8").containsIP(ip("11.0.0.1"))',
    'cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16") && !cidr("10.1.0.0/16").containsCIDR(cidr("10.0.0.0/8"))',
    'string(cidr("192.168.1.5/24").masked()) == "192.168.1.0/24" && cidr("192.168.1.5/24").prefixLength() == 24',
    'cidr("192.168.1.5/24").ip() == ip("192.168.1.5") && cidr("10.0.0.0/8") != cidr("10.0.0.0/16")',
    'quantity("1k") == quantity("1000") && ip("::1") != ip("::2")',
    'cidr("2001:db8::/32").containsIP("2001:db8::1")',
  ],
  quantity: [
    'isQuantity("1.5Gi") && isQuantity("100m") && isQuantity("1e3") && !isQuantity("1.5GB")',
    'quantity("1Gi").isGreaterThan(quantity("1G")) && quantity("500m").isLessThan(quantity("1"))',
    'quantity("1k").asInteger() == 1000 && quantity("1.5").isInteger() == false && quantity("2Ki").asInteger() == 2048',
    'quantity("1").add(quantity("500m")).compareTo(quantity("1500m")) == 0 && quantity("2").sub(1).asInteger() == 1',
    'quantity("-1").sign() == -1 && quantity("250m").asApproximateFloat() == 0.25',
  ],
  sets: [
    'sets.contains([1, 2, 3], [1, 2]) && !sets.contains([1], [2])',
    'sets.equivalent([1, 2], [2, 1, 1]) && sets.intersects([1, 2], [2, 3]) && !sets.intersects([1], [2])',
  ],
  format: [
    '!format.dns1123Label().validate("my-name").hasValue() && format.dns1123Label().validate("My_Name").hasValue()',
    'format.named("dns1123Subdomain").value().validate("a.b").hasValue() == false && !format.named("nope").hasValue()',
    '!format.qualifiedName().validate("example.com/MyName").hasValue() && !format.labelValue().validate("").hasValue()',
    '!format.uuid().validate("123e4567-e89b-12d3-a456-426614174000").hasValue() && format.uri().validate("x y").hasValue()',
    '!format.dns1123LabelPrefix().validate("web-").hasValue()',
  ],
  'has over any operand, optionals, duration': [
    'has(self.l[0].x) && !has(self.l[0].y) && !has(self.m.k)',
    'self.?nope.orValue(5) == 5 && self.?l.hasValue()',
    'duration("1h30m") > duration("90m") == false && duration("1h30m") == duration("90m")',
  ],
};

const env = celEnvironment();
const self = { l: [{ x: 1n }], m: {} };

for (const [library, expressions] of Object.entries(TRUE))
  test(`CEL library: ${library}`, () => {
    for (const e of expressions) assert.equal(env.evaluate(celSource(e), { self }), true, e);
  });

test('CEL library: refusals are errors', () => {
  for (const e of [
    'ip("nope")',
    'cidr("10.0.0.0/40")',
    'quantity("1.5GB")',
    'url("nope")',
    '[].min()',
    'quantity("1.5").asInteger()',
  ])
    assert.throws(() => env.evaluate(celSource(e), { self }), Error, e);
});
