// Every construct import-thrift handles: includes, typedefs, consts as defaults,
// enums, structs, unions, exceptions, uuid, containers of containers, keywords.
include "shared.thrift"

typedef i64 UserId
typedef list<string> Names
const i32 DEFAULT_LIMIT = 50
const string GREETING = "hello"

enum Kind { A = 0, B = 5, C = 6 }

struct Record {
  1: required UserId id
  2: string name = GREETING
  3: optional i32 limit = DEFAULT_LIMIT
  4: Kind kind = Kind.B
  5: optional shared.Level level
  6: optional uuid tag
  7: optional Names aliases
  8: optional map<string, list<shared.Point>> paths
  9: optional set<i16> ports
  10: optional binary blob
  11: optional bool flag
  12: optional byte tiny
  13: optional list<map<i32, set<string>>> deep
  14: optional shared.Point origin
}

union Value { 1: i64 num; 2: string text; 3: Record rec }

exception Oops { 1: string why; 2: i32 code }

struct Envelope {
  1: optional list<Value> values
  2: optional Oops oops
  3: optional map<Kind, Record> by_kind
}
