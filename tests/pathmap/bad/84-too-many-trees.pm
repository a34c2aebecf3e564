host h0
tree t01
core c host=h0
threads 0 host=h0 enter=c
tree t02
core c host=h0
threads 0 host=h0 enter=c
tree t03
core c host=h0
threads 0 host=h0 enter=c
tree t04
core c host=h0
threads 0 host=h0 enter=c
tree t05
core c host=h0
threads 0 host=h0 enter=c
tree t06
core c host=h0
threads 0 host=h0 enter=c
tree t07
core c host=h0
threads 0 host=h0 enter=c
tree t08
core c host=h0
threads 0 host=h0 enter=c
tree t09
core c host=h0
threads 0 host=h0 enter=c
tree t10
core c host=h0
threads 0 host=h0 enter=c
tree t11
core c host=h0
threads 0 host=h0 enter=c
tree t12
core c host=h0
threads 0 host=h0 enter=c
tree t13
core c host=h0
threads 0 host=h0 enter=c
tree t14
core c host=h0
threads 0 host=h0 enter=c
tree t15
core c host=h0
threads 0 host=h0 enter=c
tree t16
core c host=h0
threads 0 host=h0 enter=c
tree t17
core c host=h0
threads 0 host=h0 enter=c
tree t18
core c host=h0
threads 0 host=h0 enter=c
tree t19
core c host=h0
threads 0 host=h0 enter=c
tree t20
core c host=h0
threads 0 host=h0 enter=c
tree t21
core c host=h0
threads 0 host=h0 enter=c
tree t22
core c host=h0
threads 0 host=h0 enter=c
tree t23
core c host=h0
threads 0 host=h0 enter=c
tree t24
core c host=h0
threads 0 host=h0 enter=c
tree t25
core c host=h0
threads 0 host=h0 enter=c
tree t26
core c host=h0
threads 0 host=h0 enter=c
tree t27
core c host=h0
threads 0 host=h0 enter=c
tree t28
core c host=h0
threads 0 host=h0 enter=c
tree t29
core c host=h0
threads 0 host=h0 enter=c
tree t30
core c host=h0
threads 0 host=h0 enter=c
tree t31
core c host=h0
threads 0 host=h0 enter=c
tree t32
core c host=h0
threads 0 host=h0 enter=c
tree t33
core c host=h0
threads 0 host=h0 enter=c
tree t34
core c host=h0
threads 0 host=h0 enter=c
tree t35
core c host=h0
threads 0 host=h0 enter=c
tree t36
core c host=h0
threads 0 host=h0 enter=c
tree t37
core c host=h0
threads 0 host=h0 enter=c
tree t38
core c host=h0
threads 0 host=h0 enter=c
tree t39
core c host=h0
threads 0 host=h0 enter=c
tree t40
core c host=h0
threads 0 host=h0 enter=c
tree t41
core c host=h0
threads 0 host=h0 enter=c
tree t42
core c host=h0
threads 0 host=h0 enter=c
tree t43
core c host=h0
threads 0 host=h0 enter=c
tree t44
core c host=h0
threads 0 host=h0 enter=c
tree t45
core c host=h0
threads 0 host=h0 enter=c
tree t46
core c host=h0
threads 0 host=h0 enter=c
tree t47
core c host=h0
threads 0 host=h0 enter=c
tree t48
core c host=h0
threads 0 host=h0 enter=c
tree t49
core c host=h0
threads 0 host=h0 enter=c
tree t50
core c host=h0
threads 0 host=h0 enter=c
tree t51
core c host=h0
threads 0 host=h0 enter=c
tree t52
core c host=h0
threads 0 host=h0 enter=c
tree t53
core c host=h0
threads 0 host=h0 enter=c
tree t54
core c host=h0
threads 0 host=h0 enter=c
tree t55
core c host=h0
threads 0 host=h0 enter=c
tree t56
core c host=h0
threads 0 host=h0 enter=c
tree t57
core c host=h0
threads 0 host=h0 enter=c
tree t58
core c host=h0
threads 0 host=h0 enter=c
tree t59
core c host=h0
threads 0 host=h0 enter=c
tree t60
core c host=h0
threads 0 host=h0 enter=c
tree t61
core c host=h0
threads 0 host=h0 enter=c
tree t62
core c host=h0
threads 0 host=h0 enter=c
tree t63
core c host=h0
threads 0 host=h0 enter=c
tree t64
core c host=h0
threads 0 host=h0 enter=c
tree t65
core c host=h0
threads 0 host=h0 enter=c
