const a = 1, b = 2;
module.exports = { a };
exports.b = b;
function f() {}
app.listen(3000);
