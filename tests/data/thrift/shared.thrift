// Included by everything.thrift.
enum Level { LOW = 1, HIGH = 10 }
struct Point { 1: required double x; 2: required double y }
