/* Protocol conditions, evaluated exactly as studies/protocol.py `evaluate` does. */
(function (root) {
  "use strict";
  var COMPARATORS = ["eq", "ne", "lt", "le", "gt", "ge", "in", "contains"];

  function equal(a, b) {
    return JSON.stringify(a) === JSON.stringify(b);
  }

  function compare(op, actual, expected) {
    if (actual === undefined || actual === null) return false;
    if (op === "contains") return Array.isArray(actual) && actual.some(function (v) { return equal(v, expected); });
    if (op === "in") return Array.isArray(expected) && expected.some(function (v) { return equal(v, actual); });
    if (op === "eq") return equal(actual, expected);
    if (op === "ne") return !equal(actual, expected);
    if (typeof actual !== "number" || typeof expected !== "number") return false;
    switch (op) {
      case "lt": return actual < expected;
      case "le": return actual <= expected;
      case "gt": return actual > expected;
      case "ge": return actual >= expected;
    }
    return false;
  }

  function evaluate(condition, values) {
    if (condition === null || condition === undefined) return true;
    if ("all" in condition) return condition.all.every(function (c) { return evaluate(c, values); });
    if ("any" in condition) return condition.any.some(function (c) { return evaluate(c, values); });
    var op = COMPARATORS.find(function (k) { return k in condition; });
    return compare(op, values[condition.field], condition[op]);
  }

  root.TesseraConditions = { evaluate: evaluate };
})(window);
